import { readdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { textReply } from "../support/llm-server.js";
import {
	COMPACTION_PREAMBLE,
	compactionRecords,
	conversationRequests,
	expectedCompaction,
	getEntries,
	manyLines,
	numberedTranscript,
	percentReduction,
	plannerRequests,
	rangeRecords,
	scriptServer,
	threeTurns,
	tokensOf,
	turnText,
	userEntryId,
	userText,
} from "./compaction-helpers.js";
import { anthropicBody, readJsonl, startAgent, transcript, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

const RANGES: [number, number][] = [
	[1, 10],
	[14, 20],
];
const RESULT_KEYS = [
	"backupPath",
	"compactedText",
	"firstKeptEntryId",
	"parameters",
	"promptVersion",
	"rung",
	"stats",
	"summary",
	"tokensBefore",
];
/** The kept tail of three turns with preserve_recent 2: the third prompt and its reply. */
const THIRD_TURN = turnText("third", manyLines("three"));

interface SessionState {
	sessionFile: string;
}

describe("compact (manual)", () => {
	it("deletes the planned lines, appends a boundary and rebuilds the context from it", async () => {
		const { agent } = await startAgent(harness.server, { sessions: true });
		const script = scriptServer(harness.server, () => textReply(rangeRecords(RANGES)));
		await threeTurns(agent, script, { usage: { input: 1000, output: 40 } });
		const { sessionFile } = (await agent.ok({ type: "get_state" })) as SessionState;
		const fileBefore = readFileSync(sessionFile, "utf8");
		const before = await getEntries(agent);

		const start = agent.mark();
		const response = await agent.request({ id: "c1", type: "compact" });
		expect(response).toMatchObject({ id: "c1", type: "response", command: "compact", success: true });
		// `summary` repeats compactedText under pi's name, here and in compaction_end.result.
		const data = response.data as Record<string, unknown>;
		expect(data.summary).toBe(data.compactedText);
		expect(Object.keys(data).sort()).toEqual(RESULT_KEYS);

		const [planner] = plannerRequests(harness.server);
		if (!planner) throw new Error("no planner request");
		expect(harness.server.requests.indexOf(planner)).toBe(3);
		expect(anthropicBody(planner).messages).toHaveLength(1);
		const lines = numberedTranscript(planner);
		expect(lines.join("\n")).toBe(`${turnText("first", manyLines("one"))}\n\n${turnText("second", manyLines("two"))}`);
		const expected = expectedCompaction(lines, RANGES);
		expect(expected.text.split("\n")).toEqual([
			"(filtered 10 lines)",
			"one line 9",
			"one line 10",
			"one line 11",
			"(filtered 7 lines)",
			...manyLines("two").split("\n").slice(3),
		]);
		const tokensAfter = tokensOf(expected.text) + tokensOf(THIRD_TURN);
		expect(data).toEqual({
			compactedText: expected.text,
			summary: expected.text,
			firstKeptEntryId: userEntryId(before.entries, "third"),
			tokensBefore: 1040,
			promptVersion: 3,
			parameters: { compression_ratio: 0.5, preserve_recent: 2, query: "third" },
			rung: "planned",
			stats: {
				linesBefore: 29,
				linesDeleted: 17,
				linesKept: 12,
				rangeCount: 2,
				tokensBefore: 1040,
				tokensAfter,
				percentReduction: percentReduction(1040, tokensAfter),
			},
			backupPath: expect.stringMatching(/\.compact\.bak$/),
		});

		// The backup is a copy of the session file as it was before the boundary was appended.
		const backupPath = String(data.backupPath);
		expect(backupPath.startsWith(`${sessionFile}.`)).toBe(true);
		expect(readFileSync(backupPath, "utf8")).toBe(fileBefore);

		expect(compactionRecords(agent, start)).toEqual([
			{ type: "compaction_start", reason: "manual" },
			{ type: "compaction_end", reason: "manual", result: data, aborted: false, willRetry: false },
		]);

		const after = await getEntries(agent);
		expect(after.entries.slice(0, -1)).toEqual(before.entries);
		const boundary = after.entries.at(-1);
		const details = {
			strategy: "verbatim-lines",
			promptVersion: 3,
			parameters: data.parameters,
			stats: data.stats,
			rung: "planned",
			backupPath,
		};
		expect(boundary).toEqual({
			type: "compaction",
			id: expect.any(String),
			parentId: before.leafId,
			timestamp: expect.any(String),
			summary: expected.text,
			firstKeptEntryId: data.firstKeptEntryId,
			tokensBefore: 1040,
			details,
		});
		expect(after.leafId).toBe(boundary?.id);
		expect(readJsonl(sessionFile).at(-1)).toEqual(boundary);
		expect(readFileSync(sessionFile, "utf8").startsWith(fileBefore)).toBe(true);

		const contextText = `${COMPACTION_PREAMBLE}\n\n${expected.text}\n\n${THIRD_TURN}`;
		expect(await agent.ok({ type: "get_messages" })).toEqual({
			messages: [
				{
					role: "custom",
					customType: "compaction",
					content: [{ type: "text", text: contextText }],
					display: true,
					details,
					timestamp: expect.any(Number),
				},
			],
		});
		expect(await agent.ok({ type: "get_session_stats" })).toMatchObject({
			contextUsage: { tokens: null, contextWindow: 200_000, percent: null },
		});

		script.conversation.push(textReply("fourth answer", { usage: { input: 300, output: 20 } }));
		await agent.prompt("fourth");
		const next = conversationRequests(harness.server).at(-1);
		expect(transcript(next)).toEqual([`user: ${contextText}`, "user: fourth"]);
		expect(await agent.ok({ type: "get_session_stats" })).toMatchObject({
			contextUsage: { tokens: 320, contextWindow: 200_000, percent: 0.16 },
		});
	});

	it("takes compression_ratio, preserve_recent and query from the command", async () => {
		const { agent } = await startAgent(harness.server);
		const script = scriptServer(harness.server, () => textReply("3,14\n"));
		await threeTurns(agent, script);
		const start = agent.mark();
		const data = (await agent.ok({
			type: "compact",
			compression_ratio: 0.3,
			preserve_recent: 0,
			query: "the failing test",
		})) as Record<string, unknown>;

		const [planner] = plannerRequests(harness.server);
		if (!planner) throw new Error("no planner request");
		const lines = numberedTranscript(planner);
		// preserve_recent 0: the whole conversation is in the region, the newest reply included.
		expect(lines.join("\n")).toBe(
			[
				turnText("first", manyLines("one")),
				turnText("second", manyLines("two")),
				turnText("third", manyLines("three")),
			].join("\n\n"),
		);
		expect(lines).toHaveLength(44);
		const prompt = userText(planner);
		expect(prompt).toContain("\n- Total lines: 44\n- Target lines to keep: 13\n- Target lines to delete: 31\n");
		expect(prompt).toContain("\n- Relevance focus: the failing test\n");

		const expected = expectedCompaction(lines, [[3, 14]]);
		expect(data).toMatchObject({
			compactedText: expected.text,
			firstKeptEntryId: null,
			parameters: { compression_ratio: 0.3, preserve_recent: 0, query: "the failing test" },
			rung: "planned",
			stats: { linesBefore: 44, linesDeleted: 12, linesKept: 32, rangeCount: 1, tokensAfter: tokensOf(expected.text) },
		});
		// Without a session file there is no backup.
		expect(data).not.toHaveProperty("backupPath");
		expect(compactionRecords(agent, start).map((record) => record.type)).toEqual([
			"compaction_start",
			"compaction_end",
		]);
		const { messages } = (await agent.ok({ type: "get_messages" })) as { messages: { content: unknown }[] };
		expect(messages.map((message) => message.content)).toEqual([
			[{ type: "text", text: `${COMPACTION_PREAMBLE}\n\n${expected.text}` }],
		]);
	});

	it("refuses a session too small to compact, without events or planner requests", async () => {
		const { agent, sessionDir } = await startAgent(harness.server, { sessions: true });
		scriptServer(harness.server);
		await agent.prompt("hi");
		const start = agent.mark();
		expect(await agent.request({ id: "small", type: "compact" })).toEqual({
			id: "small",
			type: "response",
			command: "compact",
			success: false,
			error: "Nothing to compact (session too small)",
		});
		expect(compactionRecords(agent, start)).toEqual([]);
		expect(harness.server.requests).toHaveLength(1);
		const { sessionFile } = (await agent.ok({ type: "get_state" })) as SessionState;
		// No backup was written: only the session and the lock this process holds on it.
		const name = sessionFile.slice(sessionDir.length + 1);
		expect(readdirSync(dirname(sessionFile)).sort()).toEqual([name, `${name}.lock`]);
	});
});
