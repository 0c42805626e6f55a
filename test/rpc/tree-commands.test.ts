import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textReply } from "../support/llm-server.js";
import { jsonlFiles, readJsonl, startAgent, transcript, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

interface Entry {
	type: string;
	id: string;
	parentId: string | null;
	message?: { role: string };
	summary?: string;
	details?: { readFiles: string[]; modifiedFiles: string[] };
	targetId?: string;
	label?: string;
}

interface Node {
	entry: Entry;
	children: Node[];
	label?: string;
}

async function entries(
	agent: Awaited<ReturnType<typeof startAgent>>["agent"],
): Promise<{ entries: Entry[]; leafId: string | null }> {
	return (await agent.ok({ type: "get_entries" })) as { entries: Entry[]; leafId: string | null };
}

function findNode(nodes: Node[], id: string): Node | undefined {
	for (const node of nodes) {
		if (node.entry.id === id) return node;
		const found = findNode(node.children, id);
		if (found) return found;
	}
	return undefined;
}

describe("set_label", () => {
	it("labels an entry, shows it in get_tree, clears it, and rejects unknown ids", async () => {
		const { agent } = await startAgent(harness.server, { sessions: true });
		harness.server.enqueue(textReply("answer"));
		await agent.prompt("question");
		const { entries: list } = await entries(agent);
		const userId = list[0]?.id as string;
		expect(await agent.request({ id: "l1", type: "set_label", entryId: userId, label: " checkpoint " })).toEqual({
			id: "l1",
			type: "response",
			command: "set_label",
			success: true,
		});
		let tree = (await agent.ok({ type: "get_tree" })) as { tree: Node[] };
		expect(findNode(tree.tree, userId)?.label).toBe("checkpoint");
		await agent.ok({ type: "set_label", entryId: userId });
		tree = (await agent.ok({ type: "get_tree" })) as { tree: Node[] };
		expect(findNode(tree.tree, userId)?.label).toBeUndefined();
		expect(await agent.request({ id: "l2", type: "set_label", entryId: "nope", label: "x" })).toMatchObject({
			success: false,
			error: "Entry nope not found",
		});
	});
});

// Moving to a user message and the refusals are checked in process: test/runtime/tree-navigation.test.ts.
describe("navigate_tree", () => {
	it("summarises the branch it leaves into a branch_summary entry", async () => {
		const { agent } = await startAgent(harness.server, { sessions: true });
		harness.server.enqueue(textReply("one"), textReply("edited src/a.ts"));
		await agent.prompt("first");
		await agent.prompt("change a.ts");
		const { entries: list } = await entries(agent);
		const summary = "## Goal\nChange a.ts\n<read-files>\n</read-files>\n<modified-files>\nsrc/a.ts\n</modified-files>";
		harness.server.enqueue(textReply(summary));
		const start = agent.mark();
		const result = await agent.ok({
			type: "navigate_tree",
			targetId: list[1]?.id,
			options: { summarize: true, customInstructions: "Mention files.", label: "left" },
		});
		expect(result).toEqual({ cancelled: false });
		const planner = harness.server.requests.at(-1)?.body as { tools?: unknown; messages: { content: unknown }[] };
		expect(planner.tools).toBeUndefined();
		expect(JSON.stringify(planner.messages)).toContain("change a.ts");
		expect(JSON.stringify(planner.messages)).toContain("Mention files.");
		const after = await entries(agent);
		const branchSummary = after.entries.find((entry) => entry.type === "branch_summary");
		expect(branchSummary).toMatchObject({
			parentId: list[1]?.id,
			summary,
			details: { readFiles: [], modifiedFiles: ["src/a.ts"] },
		});
		expect(after.entries.at(-1)).toMatchObject({ type: "label", targetId: branchSummary?.id, label: "left" });
		const messages = (await agent.ok({ type: "get_messages" })) as { messages: { role: string }[] };
		expect(messages.messages.map((message) => message.role)).toEqual(["user", "assistant", "branchSummary"]);
		expect(agent.since(start).some((record) => record.type.startsWith("compaction"))).toBe(false);
	});
});

describe("import_session", () => {
	it("copies a session file into the session dir and switches to it", async () => {
		const { agent, dirs, sessionDir } = await startAgent(harness.server, { sessions: true });
		harness.server.enqueue(textReply("original answer"));
		await agent.prompt("original question");
		const [source] = jsonlFiles(sessionDir);
		const outside = join(dirs.root, "elsewhere");
		mkdirSync(outside);
		const copy = join(outside, "exported.jsonl");
		writeFileSync(
			copy,
			readJsonl(source as string)
				.map((record) => JSON.stringify(record))
				.join("\n")
				.concat("\n"),
		);
		// Switching to a file elsewhere first must not move where imports go.
		await agent.ok({ type: "switch_session", sessionPath: join(outside, "scratch.jsonl") });
		expect(await agent.ok({ type: "import_session", inputPath: copy })).toEqual({ cancelled: false });
		const state = (await agent.ok({ type: "get_state" })) as { sessionFile: string; messageCount: number };
		expect(state.sessionFile).toBe(join(sessionDir, "exported.jsonl"));
		expect(state.messageCount).toBe(2);
		expect(existsSync(state.sessionFile)).toBe(true);
		expect(await agent.request({ type: "import_session", inputPath: join(outside, "missing.jsonl") })).toMatchObject({
			success: false,
			error: `File not found: ${join(outside, "missing.jsonl")}`,
		});
		const junk = join(outside, "junk.jsonl");
		writeFileSync(junk, "hello\n");
		expect(await agent.request({ type: "import_session", inputPath: junk })).toMatchObject({
			success: false,
			error: `Not an Atomic session file: ${junk}`,
		});
	});

	it("is cancelled by a session_before_switch handler", async () => {
		const { agent, dirs } = await startAgent(harness.server, {
			sessions: true,
			prepare: (paths) => {
				const extensions = join(paths.agentDir, "extensions");
				mkdirSync(extensions);
				writeFileSync(
					join(extensions, "no-imports.js"),
					'export default function (atomic) { atomic.on("session_before_switch", (event) => event.reason === "import" ? { cancel: true } : undefined); }\n',
				);
			},
		});
		const file = join(dirs.root, "other.jsonl");
		writeFileSync(
			file,
			`${JSON.stringify({ type: "session", version: 3, id: "abc", timestamp: new Date().toISOString(), cwd: dirs.work })}\n`,
		);
		const before = (await agent.ok({ type: "get_state" })) as { sessionId: string };
		expect(await agent.ok({ type: "import_session", inputPath: file })).toEqual({ cancelled: true });
		expect(((await agent.ok({ type: "get_state" })) as { sessionId: string }).sessionId).toBe(before.sessionId);
	});
});

describe("user_bash", () => {
	it("streams deltas like bash and is recorded for the next prompt", async () => {
		const { agent } = await startAgent(harness.server);
		const start = agent.mark();
		const response = await agent.request({ id: "ub", type: "user_bash", command: "printf hello" });
		expect(response).toMatchObject({
			id: "ub",
			command: "user_bash",
			success: true,
			data: { output: "hello", exitCode: 0 },
		});
		expect(agent.since(start, "bash_execution_update")).toEqual([
			{ type: "bash_execution_update", id: "ub", channel: "stdout", delta: "hello" },
		]);
		harness.server.enqueue(textReply("seen"));
		await agent.prompt("what did it print?");
		expect(transcript(harness.server.requests.at(-1))[0]).toBe("user: Ran `printf hello`\n```\nhello\n```");
	});

	it("lets an extension answer instead of the shell", async () => {
		const { agent } = await startAgent(harness.server, {
			prepare: (paths) => {
				const extensions = join(paths.agentDir, "extensions");
				mkdirSync(extensions);
				writeFileSync(
					join(extensions, "remote.js"),
					'export default function (atomic) { atomic.on("user_bash", (event) => ({ output: "remote: " + event.command, exitCode: 0 })); }\n',
				);
			},
		});
		const start = agent.mark();
		const data = await agent.ok({ type: "user_bash", command: "ls" });
		expect(data).toEqual({ output: "remote: ls", exitCode: 0, cancelled: false, truncated: false });
		expect(agent.since(start, "bash_execution_update")).toEqual([]);
	});
});

describe("pause_queued_messages", () => {
	it("queues prompts while paused, even when idle, and delivers them on resume", async () => {
		const { agent } = await startAgent(harness.server);
		await agent.ok({ type: "pause_queued_messages" });
		const start = agent.mark();
		await agent.ok({ type: "prompt", message: "held one" });
		await agent.ok({ type: "prompt", message: "held two", streamingBehavior: "followUp" });
		const state = (await agent.ok({ type: "get_state" })) as {
			queuedMessagesPaused: boolean;
			pendingMessageCount: number;
		};
		expect(state).toMatchObject({ queuedMessagesPaused: true, pendingMessageCount: 2 });
		expect(agent.since(start, "agent_start")).toEqual([]);
		const updates = agent.since(start, "queue_update");
		expect(updates.at(-1)).toMatchObject({
			steering: ["held one"],
			followUp: ["held two"],
			steeringItems: [{ id: expect.any(String), text: "held one" }],
			followUpItems: [{ id: expect.any(String), text: "held two" }],
		});
		harness.server.enqueue(textReply("first reply"), textReply("second reply"));
		expect(await agent.ok({ type: "resume_queued_messages" })).toEqual({ released: true });
		await agent.waitForEvent("agent_settled", () => true, start, 20_000);
		expect(transcript(harness.server.requests.at(-1))).toEqual([
			"user: held one",
			"assistant: first reply",
			"user: held two",
		]);
		expect(await agent.ok({ type: "resume_queued_messages" })).toEqual({ released: false });
		expect(((await agent.ok({ type: "get_state" })) as { queuedMessagesPaused: boolean }).queuedMessagesPaused).toBe(
			false,
		);
	});

	it("clear_queue returns what it removed", async () => {
		const { agent } = await startAgent(harness.server);
		await agent.ok({ type: "pause_queued_messages" });
		await agent.ok({ type: "prompt", message: "a" });
		await agent.ok({ type: "follow_up", message: "b" });
		expect(await agent.ok({ type: "clear_queue" })).toEqual({ steering: ["a"], followUp: ["b"] });
		expect(((await agent.ok({ type: "get_state" })) as { pendingMessageCount: number }).pendingMessageCount).toBe(0);
	});
});
