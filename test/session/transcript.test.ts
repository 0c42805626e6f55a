import { describe, expect, it } from "vitest";
import { BRANCH_SUMMARY_INTRO } from "../../src/agent/messages.js";
import type { ImageContent } from "../../src/llm/types.js";
import { renderTranscript } from "../../src/session/transcript.js";
import { assistant, call, toolResult, user } from "./helpers.js";

const image: ImageContent = { type: "image", data: "aGVsbG8=", mimeType: "image/png" };

describe("renderTranscript", () => {
	it("renders each role with its header, the assistant's sections always in the same order", () => {
		const reply = assistant("", { calls: [call("c1", "read", { path: "a.txt", limit: 10 }), call("c2", "ls", {})] });
		reply.content = [
			{ type: "toolCall", id: "c1", name: "read", arguments: { path: "a.txt", limit: 10 } },
			{ type: "text", text: "Let me look." },
			{ type: "thinking", thinking: "I should read it." },
			{ type: "text", text: "Then list." },
			{ type: "thinking", thinking: "And list." },
			{ type: "thinking", thinking: "hidden", redacted: true },
			{ type: "toolCall", id: "c2", name: "ls", arguments: {} },
		];
		const text = renderTranscript(
			[
				user("Please read a.txt\n"),
				{
					role: "user",
					content: [
						{ type: "text", text: "two " },
						{ type: "text", text: "parts" },
					],
					timestamp: 1,
				},
				reply,
				toolResult("c1", "line 1\nline 2\n"),
				toolResult("c2", "a.txt"),
			],
			"compacted",
		);
		expect(text).toBe(
			[
				"[User]: Please read a.txt",
				"[User]: two parts",
				"[Assistant thinking]: I should read it.\nAnd list.",
				"[Assistant]: Let me look.\nThen list.",
				'[Assistant tool calls]: read(path="a.txt", limit=10); ls()',
				"[Tool result]: line 1\nline 2",
				"[Tool result]: a.txt",
			].join("\n\n"),
		);
	});

	it("omits empty sections", () => {
		expect(renderTranscript([assistant("", { calls: [call("c1", "ls", { path: "." })] })], "compacted")).toBe(
			'[Assistant tool calls]: ls(path=".")',
		);
		expect(renderTranscript([user("   "), assistant("")], "compacted")).toBe("");
	});

	it("cuts long tool-result text chunks in compacted mode only", () => {
		const long = "x".repeat(16_005);
		const message = toolResult("c1", long);
		message.content.push({ type: "text", text: "tail" });
		expect(renderTranscript([message], "compacted")).toBe(
			`[Tool result]: ${"x".repeat(16_000)}\n\n[... 5 more characters truncated]tail`,
		);
		expect(renderTranscript([message], "retained")).toEqual([{ type: "text", text: `[Tool result]: ${long}tail` }]);
		expect(renderTranscript([user(long)], "compacted")).toBe(`[User]: ${long}`);
	});

	it("renders images as an [image] line in compacted mode and keeps them in retained mode", () => {
		const message = {
			role: "user" as const,
			content: [{ type: "text" as const, text: "see" }, image, { type: "text" as const, text: "this" }],
			timestamp: 1,
		};
		const imageOnly = { role: "user" as const, content: [image], timestamp: 1 };
		expect(renderTranscript([message, imageOnly], "compacted")).toBe("[User]: see\n[image]\nthis\n\n[User]: [image]");
		expect(renderTranscript([message, imageOnly], "retained")).toEqual([
			{ type: "text", text: "[User]: see\n" },
			image,
			{ type: "text", text: "this\n\n[User]: " },
			image,
		]);
	});

	it("renders custom, bash and branch-summary messages as user sections", () => {
		const text = renderTranscript(
			[
				{ role: "custom", customType: "note", content: "a note", display: true, timestamp: 1 },
				{ role: "custom", customType: "hidden", content: "x", display: false, excludeFromContext: true, timestamp: 1 },
				{
					role: "bashExecution",
					command: "ls",
					output: "a.txt\n",
					exitCode: 2,
					cancelled: false,
					truncated: false,
					timestamp: 1,
				},
				{ role: "branchSummary", summary: "tried X", fromId: "abc", timestamp: 1 },
			],
			"compacted",
		);
		expect(text).toBe(
			[
				"[User]: a note",
				"[User]: Ran `ls`\n```\na.txt\n```\nCommand exited with code 2",
				`[User]: ${BRANCH_SUMMARY_INTRO}\n\n<summary>\ntried X\n</summary>`,
			].join("\n\n"),
		);
	});
});
