import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { textReply } from "../support/llm-server.js";
import { type RpcAgent, testProviders } from "../support/rpc-process.js";
import { anthropicBody, readJsonl, startAgent, transcript, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

const THIRTY_LINES = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`).join("\n");
/** What the planner reply "2,10" + "20,25" leaves of the region (30 user lines, a blank, the reply). */
const COMPACTED = [
	"[User]: line 1",
	"(filtered 9 lines)",
	...Array.from({ length: 9 }, (_, index) => `line ${index + 11}`),
	"(filtered 6 lines)",
	...Array.from({ length: 5 }, (_, index) => `line ${index + 26}`),
	"",
	"[Assistant]: ok",
].join("\n");
const INTRO =
	"Earlier parts of this conversation were compacted: what follows is the verbatim text of the lines that were kept, and each elided span appears as a line reading (filtered N lines).";

/** Two exchanges: a 30-line prompt answered "ok", then "second" answered "done" (usage 1000 in, 10 out). */
async function twoExchanges(agent: RpcAgent): Promise<string> {
	harness.server.enqueue(textReply("ok"), textReply("done", { usage: { input: 1000, output: 10 } }));
	await agent.prompt(THIRTY_LINES);
	await agent.prompt("second");
	const { entries } = (await agent.ok({ type: "get_entries" })) as { entries: { id: string }[] };
	return entries[2]?.id ?? "";
}

// How the parameters reach the planner, a reply that is not a list of ranges, and abort during a
// compaction are checked in process: test/runtime/compact.test.ts.
describe("compact", () => {
	it("asks the model for deletion ranges, writes the boundary and rebuilds the context", async () => {
		const { agent } = await startAgent(harness.server, { sessions: true });
		const secondEntry = await twoExchanges(agent);
		const { sessionFile } = (await agent.ok({ type: "get_state" })) as { sessionFile: string };
		const fileBefore = readFileSync(sessionFile, "utf8");
		harness.server.enqueue(textReply("2,10\n20,25"));
		const start = agent.mark();
		const response = await agent.request({ id: "cp", type: "compact" });
		const data = response.data as { backupPath: string; stats: { tokensAfter: number; percentReduction: number } };
		const result = {
			compactedText: COMPACTED,
			summary: COMPACTED,
			firstKeptEntryId: secondEntry,
			tokensBefore: 1010,
			parameters: { compression_ratio: 0.5, preserve_recent: 2, query: "second" },
			rung: "planned",
			stats: {
				linesBefore: 32,
				linesDeleted: 15,
				linesKept: 17,
				rangeCount: 2,
				tokensBefore: 1010,
				tokensAfter: data.stats.tokensAfter,
				percentReduction: data.stats.percentReduction,
			},
			promptVersion: 3,
			backupPath: data.backupPath,
		};
		// The text is also `summary`, the name pi's clients read, in the response and in compaction_end.
		expect(response).toEqual({ id: "cp", type: "response", command: "compact", success: true, data: result });
		expect(data.stats.tokensAfter).toBeLessThan(1010);
		// Percent with one decimal.
		expect(data.stats.percentReduction).toBe(Math.round((1 - data.stats.tokensAfter / 1010) * 1000) / 10);
		expect(agent.since(start)).toEqual([
			{ type: "compaction_start", reason: "manual" },
			{ type: "compaction_end", reason: "manual", result, aborted: false, willRetry: false },
			response,
		]);

		const planner = anthropicBody(harness.server.requests[2]);
		expect(planner.system?.[0]?.text.startsWith("You are the line-pruning stage of a context compactor")).toBe(true);
		expect(transcript(harness.server.requests[2])[0]).toContain(
			"<numbered-transcript>\n1\u2192[User]: line 1\n2\u2192line 2\n",
		);
		expect(transcript(harness.server.requests[2])[0]).toContain(
			"31\u2192\n32\u2192[Assistant]: ok\n</numbered-transcript>",
		);
		expect(transcript(harness.server.requests[2])[0]).toContain("- Target lines to keep: 16\n");

		expect(data.backupPath.startsWith(`${sessionFile}.`)).toBe(true);
		expect(readFileSync(data.backupPath, "utf8")).toBe(fileBefore);
		const boundary = readJsonl(sessionFile).at(-1);
		expect(boundary).toMatchObject({
			type: "compaction",
			summary: COMPACTED,
			firstKeptEntryId: secondEntry,
			tokensBefore: 1010,
			details: { strategy: "verbatim-lines", promptVersion: 3, rung: "planned" },
		});

		// The context size is unknown until a reply reports usage again.
		const stats = (await agent.ok({ type: "get_session_stats" })) as { contextUsage: unknown };
		expect(stats.contextUsage).toEqual({ tokens: null, contextWindow: 200_000, percent: null });
		harness.server.enqueue(textReply("after", { usage: { input: 400, output: 10 } }));
		await agent.prompt("third");
		const after = (await agent.ok({ type: "get_session_stats" })) as { contextUsage: unknown };
		expect(after.contextUsage).toEqual({ tokens: 410, contextWindow: 200_000, percent: 0.21 });
		expect(transcript(harness.server.requests[3])).toEqual([
			`user: ${INTRO}\n\n${COMPACTED}\n\n[User]: second\n\n[Assistant]: done`,
			"user: third",
		]);
	});

	it("takes pi's customInstructions as the query when no query is given", async () => {
		const { agent } = await startAgent(harness.server, { sessions: true });
		await twoExchanges(agent);
		harness.server.enqueue(textReply("3,30"));
		const data = (await agent.ok({ type: "compact", customInstructions: "the parser" })) as { parameters: unknown };
		expect(data.parameters).toEqual({ compression_ratio: 0.5, preserve_recent: 2, query: "the parser" });
		expect(transcript(harness.server.requests[2])[0]).toContain("- Relevance focus: the parser\n");
	});

	it("refuses a session too small to compact, and bad parameters", async () => {
		const { agent } = await startAgent(harness.server);
		await agent.prompt("short");
		const start = agent.mark();
		expect(await agent.request({ id: "small", type: "compact" })).toEqual({
			id: "small",
			type: "response",
			command: "compact",
			success: false,
			error: "Nothing to compact (session too small)",
		});
		expect(agent.since(start)).toHaveLength(1);
		expect(await agent.request({ id: "ratio", type: "compact", compression_ratio: 1.5 })).toMatchObject({
			success: false,
			error: 'Invalid "compact" command: field "compression_ratio" must be < 1',
		});
		expect(await agent.request({ id: "keep", type: "compact", preserve_recent: 1.5 })).toMatchObject({
			success: false,
			error: 'Invalid "compact" command: field "preserve_recent" must be an integer',
		});
		expect(harness.server.requests).toHaveLength(1);
	});

	it("abort_compaction cancels a compaction in progress", async () => {
		const { agent } = await startAgent(harness.server, { sessions: true });
		await twoExchanges(agent);
		harness.server.enqueue({ ...textReply("2,10"), fault: "stall", faultAfterFrames: 2 });
		const start = agent.mark();
		agent.send({ id: "slow", type: "compact" });
		await agent.waitForEvent("compaction_start", () => true, start);
		expect(await agent.request({ id: "stop", type: "abort_compaction" })).toEqual({
			id: "stop",
			type: "response",
			command: "abort_compaction",
			success: true,
		});
		const response = await agent.waitFor((record) => record.type === "response" && record.id === "slow", { start });
		expect(response).toEqual({
			id: "slow",
			type: "response",
			command: "compact",
			success: false,
			error: "Compaction cancelled",
		});
		expect(agent.since(start, "compaction_end")).toEqual([
			{ type: "compaction_end", reason: "manual", result: null, aborted: true, willRetry: false },
		]);
		expect(await agent.ok({ type: "get_state" })).toMatchObject({ isCompacting: false, messageCount: 4 });
		const { sessionFile } = (await agent.ok({ type: "get_state" })) as { sessionFile: string };
		expect(readJsonl(sessionFile).some((record) => record.type === "compaction")).toBe(false);
		expect(existsSync(sessionFile)).toBe(true);
	});
});

describe("automatic compaction", () => {
	const smallWindow = () => testProviders(harness.server, 20_000);

	it("compacts after a reply near the window, before agent_settled", async () => {
		const { agent } = await startAgent(harness.server, { providers: smallWindow() });
		harness.server.enqueue(
			textReply("ok"),
			textReply("big", { usage: { input: 10_000, output: 10 } }),
			textReply("2,10"),
		);
		await agent.prompt(THIRTY_LINES);
		const { start } = await agent.prompt("second");
		const types = agent.since(start).map((record) => record.type);
		expect(types.slice(types.indexOf("agent_end"))).toEqual([
			"agent_end",
			"compaction_start",
			"compaction_end",
			"agent_settled",
		]);
		expect(agent.since(start, "compaction_start")).toEqual([{ type: "compaction_start", reason: "threshold" }]);
		expect(agent.since(start, "compaction_end")[0]).toMatchObject({
			reason: "threshold",
			aborted: false,
			willRetry: false,
			result: { rung: "planned", stats: { linesDeleted: 9 } },
		});
		expect(harness.server.requests).toHaveLength(3);
	});

	it("does not compact when set_auto_compaction is false", async () => {
		const { agent } = await startAgent(harness.server, { providers: smallWindow() });
		await agent.ok({ type: "set_auto_compaction", enabled: false });
		harness.server.enqueue(textReply("ok"), textReply("big", { usage: { input: 10_000, output: 10 } }));
		await agent.prompt(THIRTY_LINES);
		const { start } = await agent.prompt("second");
		expect(agent.since(start, "compaction_start")).toEqual([]);
		expect(harness.server.requests).toHaveLength(2);
	});
});
