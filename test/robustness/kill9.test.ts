/**
 * SIGKILL of the whole agent, 100 times, while it streams replies into a session directory. After
 * every kill each session file must load, keep everything an earlier load saw, and (checked
 * through the CLI every 10th kill) take a new prompt.
 */

import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../src/agent/messages.js";
import { openSession } from "../../src/session/open.js";
import { jsonlFiles, useRpcHarness } from "../rpc/helpers.js";
import type { RecordedRequest, ScriptedReply } from "../support/llm-server.js";
import { makeAgentDir, RpcAgent, type RpcRecord } from "../support/rpc-process.js";
import { soakSize } from "../support/soak.js";
import { pause, seededRandom } from "./helpers.js";

const harness = useRpcHarness();

const KILLS = soakSize(100, 10);
const LANES = 2;
const FULL_CHECK_EVERY = soakSize(10, 5);
/** The share of kills that land before the reply starts (during start-up and the SDK import). */
const EARLY_KILLS = 0.2;
/** Kills land up to a little after a reply (and a tool call's second reply) has ended. */
const MAX_KILL_DELAY_MS = 250;

interface AnthropicMessage {
	role: string;
	content: string | { type: string; text?: string }[];
}

/** Streams every answer; a prompt that asks for a tool first gets a quick bash call. */
function reply(request: RecordedRequest): ScriptedReply {
	const messages = (request.body as { messages: AnthropicMessage[] }).messages;
	const last = messages.at(-1);
	const blocks = typeof last?.content === "string" ? [{ type: "text", text: last.content }] : (last?.content ?? []);
	const text = "A streamed answer in twelve small pieces, written to the session as it goes.";
	if (blocks.some((block) => block.type === "tool_result")) {
		return { blocks: [{ type: "text", text, chunks: 12 }], delayMs: 8 };
	}
	if (blocks.some((block) => block.text?.startsWith("use a tool"))) {
		return {
			blocks: [
				{ type: "text", text: "Running it.", chunks: 3 },
				{ type: "toolCall", name: "bash", arguments: { command: "echo from-the-tool" } },
			],
			delayMs: 8,
		};
	}
	return { blocks: [{ type: "text", text, chunks: 12 }], delayMs: 8 };
}

function isAssistant(record: RpcRecord): boolean {
	return (record.message as { role?: string } | undefined)?.role === "assistant";
}

/** Tool calls the context sends without a result: a crash mid-tool must be repaired, not resent bare. */
function unansweredToolCalls(messages: readonly AgentMessage[]): string[] {
	const unanswered: string[] = [];
	messages.forEach((message, index) => {
		if (message.role !== "assistant" || message.stopReason !== "toolUse") return;
		const answered = new Set<string>();
		for (const next of messages.slice(index + 1)) {
			if (next.role === "assistant") break;
			if (next.role === "toolResult") answered.add(next.toolCallId);
		}
		for (const block of message.content) {
			if (block.type === "toolCall" && !answered.has(block.id)) unanswered.push(block.id);
		}
	});
	return unanswered;
}

/** Loads every session file in-process; returns the entry ids per file. */
function loadAll(sessionDir: string): Map<string, string[]> {
	const loaded = new Map<string, string[]>();
	for (const file of jsonlFiles(sessionDir)) {
		const warnings: string[] = [];
		const session = openSession(file, { warn: (line) => warnings.push(line) });
		try {
			const entries = session.entries();
			const ids = new Set(entries.map((entry) => entry.id));
			// Only a torn last line may be skipped, never a record in the middle.
			expect(
				warnings.every((line) => line.startsWith("Warning: skipped 1 invalid line in ")),
				warnings.join("\n"),
			).toBe(true);
			expect(entries.every((entry) => entry.parentId === null || ids.has(entry.parentId))).toBe(true);
			expect(unansweredToolCalls(session.buildContext().messages)).toEqual([]);
			loaded.set(file, [...ids]);
		} finally {
			session.close();
		}
	}
	return loaded;
}

interface Lane {
	name: string;
	sessionDir: string;
	random: () => number;
	/** The entry ids of each file at the last load. */
	previous: Map<string, string[]>;
	fullChecks: number;
}

type AgentOptions = Omit<ConstructorParameters<typeof RpcAgent>[0], "args">;

/** Every entry an earlier load saw is still there, first and in the same order. */
function expectKept(previous: Map<string, string[]>, loaded: Map<string, string[]>, label: string): void {
	for (const [file, ids] of previous) expect(loaded.get(file)?.slice(0, ids.length), label).toEqual(ids);
}

/** Through the CLI: the continued session holds what the in-process load saw, and takes a prompt. */
async function expectContinuable(agent: RpcAgent, lane: Lane, label: string): Promise<void> {
	const { sessionFile } = (await agent.ok({ type: "get_state" })) as { sessionFile: string };
	const known = lane.previous.get(sessionFile) ?? [];
	const before = (await agent.ok({ type: "get_entries" })) as { entries: { id: string }[] };
	expect(before.entries.map((entry) => entry.id).slice(0, known.length), label).toEqual(known);
	const { start } = await agent.prompt(`continue after ${label}`);
	const replies = agent.since(start, "message_end").filter(isAssistant);
	expect(
		replies.map((record) => (record.message as { stopReason: string }).stopReason),
		label,
	).toEqual(["stop"]);
	const after = (await agent.ok({ type: "get_entries" })) as { entries: { id: string }[] };
	expect(after.entries.slice(0, before.entries.length), label).toEqual(before.entries);
	expect(after.entries.length, label).toBeGreaterThanOrEqual(before.entries.length + 2);
	lane.fullChecks++;
}

/** One kill: start (continuing the lane's session), maybe check it, prompt, SIGKILL at a random moment. */
async function killOnce(lane: Lane, options: AgentOptions, kill: number): Promise<void> {
	const label = `${lane.name} kill ${kill}`;
	const agent = new RpcAgent({
		...options,
		args: ["--session-dir", lane.sessionDir, ...(kill > 1 ? ["--continue"] : [])],
	});
	try {
		await agent.waitForEvent("ready", () => true, 0, 20_000);
		if (kill % FULL_CHECK_EVERY === 0) await expectContinuable(agent, lane, label);
		const start = agent.mark();
		await agent.request({ type: "prompt", message: kill % 3 === 0 ? `use a tool ${kill}` : `prompt ${kill}` });
		// Most kills land while a reply streams; some before the request is even sent.
		if (lane.random() >= EARLY_KILLS) await agent.waitForEvent("message_start", isAssistant, start, 20_000);
		await pause(Math.floor(lane.random() * MAX_KILL_DELAY_MS));
	} finally {
		agent.kill("SIGKILL");
	}
	expect(await agent.exited, label).toEqual({ code: null, signal: "SIGKILL" });
	const loaded = loadAll(lane.sessionDir);
	// --continue always found the crashed session: one file, growing.
	expect(loaded.size, label).toBeLessThanOrEqual(1);
	expectKept(lane.previous, loaded, label);
	lane.previous = loaded;
}

describe("kill -9 during streaming", () => {
	it(`leaves loadable, continuable session files after ${KILLS} SIGKILLs`, async () => {
		harness.server.onRequest(reply);
		const dirs = makeAgentDir({ server: harness.server, settings: { retry: { enabled: false } } });
		const options: AgentOptions = {
			agentDir: dirs.agentDir,
			home: dirs.home,
			cwd: dirs.work,
			env: { TMPDIR: join(dirs.root, "tmp") },
		};
		// Independent lanes (own session dir, own seed) overlap one agent's start-up with another's stream.
		const lanes: Lane[] = Array.from({ length: LANES }, (_, index) => ({
			name: `lane ${index}`,
			sessionDir: join(dirs.root, `sessions-${index}`),
			random: seededRandom(0x9c111 + index),
			previous: new Map(),
			fullChecks: 0,
		}));
		try {
			await Promise.all(
				lanes.map(async (lane) => {
					for (let kill = 1; kill <= KILLS / LANES; kill++) await killOnce(lane, options, kill);
				}),
			);
		} finally {
			dirs.cleanup();
		}
		expect(lanes.map((lane) => lane.fullChecks)).toEqual(lanes.map(() => KILLS / LANES / FULL_CHECK_EVERY));
		// Kills landed after entries were written (the full checks alone add 2 per check, 1 per 10 kills).
		const perLane = KILLS / LANES;
		for (const lane of lanes) expect([...lane.previous.values()][0]?.length ?? 0).toBeGreaterThan(perLane * 0.4);
	}, 170_000);
});
