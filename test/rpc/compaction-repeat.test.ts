import { describe, expect, it } from "vitest";
import { textReply } from "../support/llm-server.js";
import {
	COMPACTION_PREAMBLE,
	conversationRequests,
	getEntries,
	manyLines,
	numberedTranscript,
	plannerRequests,
	rangeRecords,
	scriptServer,
	threeTurns,
	turnText,
	userEntryId,
} from "./compaction-helpers.js";
import { anthropicBody, startAgent, transcript, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

const FIRST_SUMMARY = [
	"(filtered 10 lines)",
	"one line 9",
	"one line 10",
	"one line 11",
	"(filtered 7 lines)",
	...manyLines("two").split("\n").slice(3),
].join("\n");

describe("repeated compaction", () => {
	it("starts the next region with the previous compacted text and folds its markers", async () => {
		const { agent } = await startAgent(harness.server);
		const replies: [number, number][][] = [
			[
				[1, 10],
				[14, 20],
			],
			[[2, 4]],
		];
		const script = scriptServer(harness.server, (_request, index) => textReply(rangeRecords(replies[index] ?? [])));
		await threeTurns(agent, script);
		expect(await agent.ok({ type: "compact" })).toMatchObject({ compactedText: FIRST_SUMMARY });

		script.conversation.push(textReply(manyLines("four")), textReply(manyLines("five")));
		await agent.prompt("fourth");
		await agent.prompt("fifth");
		// The conversation goes on from the boundary: the compacted text, then the turns after it.
		expect(transcript(conversationRequests(harness.server).at(-1))).toEqual([
			`user: ${COMPACTION_PREAMBLE}\n\n${FIRST_SUMMARY}\n\n${turnText("third", manyLines("three"))}`,
			"user: fourth",
			`assistant: ${manyLines("four")}`,
			"user: fifth",
		]);

		const second = await agent.ok({ type: "compact" });
		const planner = plannerRequests(harness.server)[1];
		if (!planner) throw new Error("no second planner request");
		// Region: the previous compacted text, the turn it kept, and the turns after the boundary
		// except the newest two messages.
		const lines = numberedTranscript(planner);
		expect(lines.join("\n")).toBe(
			`${FIRST_SUMMARY}\n${turnText("third", manyLines("three"))}\n\n${turnText("fourth", manyLines("four"))}`,
		);
		// Deleting lines 2-4 pulls in the old markers on either side: 10 + 3 + 7 original lines.
		const compactedText = ["(filtered 20 lines)", ...lines.slice(5)].join("\n");
		const { entries } = await getEntries(agent);
		expect(second).toMatchObject({
			compactedText,
			firstKeptEntryId: userEntryId(entries, "fifth"),
			stats: { linesBefore: lines.length, linesDeleted: 5, linesKept: lines.length - 5, rangeCount: 1 },
		});
		expect(entries.filter((entry) => entry.type === "compaction").map((entry) => entry.summary)).toEqual([
			FIRST_SUMMARY,
			compactedText,
		]);
	});

	// The planner request is a one-off: it asks the provider to cache nothing.
	it("sends the planner request without prompt-cache breakpoints", async () => {
		const { agent } = await startAgent(harness.server);
		const script = scriptServer(harness.server, () => textReply("1,10\n"));
		await threeTurns(agent, script);
		await agent.ok({ type: "compact" });
		const [planner] = plannerRequests(harness.server);
		expect(JSON.stringify(anthropicBody(planner))).not.toContain("cache_control");
	});
});
