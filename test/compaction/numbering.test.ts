import { describe, expect, it } from "vitest";
import { type AgentMessage, BRANCH_SUMMARY_INTRO } from "../../src/agent/messages.js";
import { createNumberedRegion, numberRegionLines, withoutHead } from "../../src/compaction/numbering.js";
import { renderTranscript } from "../../src/session/transcript.js";
import { assistant, call, toolResult, user } from "../session/helpers.js";
import { regionOf } from "./helpers.js";

describe("numbering a rendered transcript", () => {
	it("numbers every message kind after rendering it in compacted mode", () => {
		const reply = assistant("Reading it.", { calls: [call("c1", "read", { path: "src/math.ts", limit: 5 })] });
		reply.content.unshift({ type: "thinking", thinking: "Check the file first." });
		const messages: AgentMessage[] = [
			user("Fix the failing test\nin math.ts"),
			reply,
			toolResult("c1", "export const add = (a, b) => a - b;\n"),
			{
				role: "user",
				content: [
					{ type: "text", text: "Screenshot:" },
					{ type: "image", data: "AAAA", mimeType: "image/png" },
				],
				timestamp: 1,
			},
			{ role: "custom", customType: "note", content: "CI is red", display: true, timestamp: 2 },
			{
				role: "custom",
				customType: "hidden",
				content: "not for the model",
				display: false,
				excludeFromContext: true,
				timestamp: 2,
			},
			{
				role: "bashExecution",
				command: "npm test",
				output: "1 failed\n",
				exitCode: 1,
				cancelled: false,
				truncated: false,
				timestamp: 3,
			},
			{ role: "branchSummary", summary: "Tried a rewrite; abandoned.", fromId: "abc", timestamp: 4 },
		];
		const region = createNumberedRegion(renderTranscript(messages, "compacted"));

		expect(numberRegionLines(region)).toBe(
			[
				"1→[User]: Fix the failing test",
				"2→in math.ts",
				"3→",
				"4→[Assistant thinking]: Check the file first.",
				"5→",
				"6→[Assistant]: Reading it.",
				"7→",
				'8→[Assistant tool calls]: read(path="src/math.ts", limit=5)',
				"9→",
				"10→[Tool result]: export const add = (a, b) => a - b;",
				"11→",
				"12→[User]: Screenshot:",
				"13→[image]",
				"14→",
				"15→[User]: CI is red",
				"16→",
				"17→[User]: Ran `npm test`",
				"18→```",
				"19→1 failed",
				"20→```",
				"21→Command exited with code 1",
				"22→",
				`23→[User]: ${BRANCH_SUMMARY_INTRO}`,
				"24→",
				"25→<summary>",
				"26→Tried a rewrite; abandoned.",
				"27→</summary>",
			].join("\n"),
		);
		expect(region.headerLines).toEqual([1, 4, 6, 8, 10, 12, 15, 17, 23]);
		expect(region.priorMarkers.size).toBe(0);
		expect(region.protectedLines).toEqual([]);
		expect(region.tokenEstimate).toBe(Math.ceil(region.text.length / 4));
	});

	it("recognises headers only at a line start, with the exact role names", () => {
		const region = regionOf([
			"[User]: a",
			" [User]: indented",
			"[user]: lower case",
			"[Assistant]:no space",
			"[System]: unknown role",
			"[Tool result]: ok",
		]);
		expect(region.headerLines).toEqual([1, 6]);
	});

	it("records markers left by an earlier compaction with their counts", () => {
		const region = regionOf([
			"(filtered 12 lines)",
			"[User]: hi",
			"(filtered 1 lines)",
			"(filtered 3 line)",
			" (filtered 4 lines)",
		]);
		expect([...region.priorMarkers]).toEqual([
			[1, 12],
			[3, 1],
		]);
	});

	it("estimates tokens as characters / 4, rounded up", () => {
		expect(createNumberedRegion("12345").tokenEstimate).toBe(2);
		expect(createNumberedRegion("1234").tokenEstimate).toBe(1);
		expect(createNumberedRegion("").lines).toEqual([""]);
	});

	it("a view without the head is renumbered, with protected lines and markers shifted", () => {
		const region = regionOf([
			"[User]: <keepContext>",
			"pinned",
			"</keepContext>",
			"(filtered 5 lines)",
			"[Assistant]: done",
		]);
		const view = withoutHead(region, 2);
		expect(view.lines).toEqual(["</keepContext>", "(filtered 5 lines)", "[Assistant]: done"]);
		expect(view.protectedLines).toEqual([1]);
		expect(view.protectedRanges).toEqual([{ start: 1, end: 1 }]);
		expect([...view.priorMarkers]).toEqual([[2, 5]]);
		expect(view.headerLines).toEqual([3]);
		expect(view.text).toBe("</keepContext>\n(filtered 5 lines)\n[Assistant]: done");
		expect(numberRegionLines(view)).toBe("1→</keepContext>\n2→(filtered 5 lines)\n3→[Assistant]: done");
	});
});
