/**
 * A host written against pi's RpcClient drives Atomic unchanged: the client (typed as pi 1.6's)
 * reads each prompt's disposition, the commands' sourceInfo and the compaction's summary.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { textReply } from "../support/llm-server.js";
import { PiRpcClient, type RpcEvent } from "../support/pi-rpc-client.js";
import { CLI, childEnv, makeAgentDir } from "../support/rpc-process.js";
import { FIXTURES } from "./extensions-helpers.js";
import { recordViolations, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();
const clients: { client: PiRpcClient; cleanup(): void }[] = [];

afterEach(async () => {
	const violations: string[] = [];
	for (const { client, cleanup } of clients.splice(0)) {
		await client.stop();
		cleanup();
		violations.push(...recordViolations(client.records));
	}
	expect(violations).toEqual([]);
});

/** pi's RpcClient options: the CLI path, a cwd, extra env and args. */
async function startPiClient(): Promise<{ client: PiRpcClient; template: string; guard: string }> {
	const dirs = makeAgentDir({ server: harness.server });
	const template = join(dirs.agentDir, "prompts", "review.md");
	mkdirSync(dirname(template), { recursive: true });
	writeFileSync(template, "---\ndescription: Review a file\n---\nReview $1.\n");
	const guard = join(FIXTURES, "pi-session-guard.ts");
	// An input hook that takes "!later" itself: such a prompt is handled, no run starts.
	const hook = join(dirs.root, "later.ts");
	writeFileSync(
		hook,
		'export default function (pi) { pi.on("input", (event) => (event.text === "!later" ? { action: "handled" } : undefined)); }\n',
	);
	const client = new PiRpcClient({
		cliPath: CLI,
		cwd: dirs.work,
		env: childEnv(dirs.agentDir, dirs.home) as Record<string, string>,
		args: ["--no-session", "-e", guard, "-e", hook],
	});
	clients.push({ client, cleanup: dirs.cleanup });
	await client.start();
	return { client, template, guard };
}

function nextEvent(client: PiRpcClient, type: string): Promise<RpcEvent> {
	return new Promise((resolveEvent) => {
		const stop = client.onEvent((event) => {
			if (event.type !== type) return;
			stop();
			resolveEvent(event);
		});
	});
}

const THIRTY_LINES = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`).join("\n");

describe("pi's RpcClient against Atomic", () => {
	it("reads each prompt's disposition: started, queued, handled", async () => {
		const { client } = await startPiClient();
		expect(await client.prompt("!later")).toBe("handled");
		harness.server.enqueue(textReply("hello back"));
		const events = await client.promptAndWait("hello");
		expect(events.map((event) => event.type)).toContain("agent_end");
		expect(events.at(-1)?.type).toBe("agent_settled");
		expect(await client.getLastAssistantText()).toBe("hello back");

		harness.server.enqueue({ ...textReply("never finished"), fault: "stall", faultAfterFrames: 3 });
		const streaming = nextEvent(client, "message_update");
		expect(await client.prompt("long one")).toBe("started");
		await streaming;
		expect(await client.steer("look here")).toBe("queued");
		expect(await client.followUp("then this")).toBe("queued");
		expect(await client.prompt("and this", undefined, "followUp")).toBe("queued");
		expect(await client.prompt("/save")).toBe("handled");
		expect(await client.clearQueue()).toEqual({ steering: ["look here"], followUp: ["then this", "and this"] });
		const settled = client.waitForIdle();
		await client.abort();
		await settled;
		expect(harness.server.requests.map((request) => JSON.stringify(request.body).includes("!later"))).not.toContain(
			true,
		);
		const state = await client.getState();
		expect(state).toMatchObject({ isStreaming: false, pendingMessageCount: 0, steeringMode: "one-at-a-time" });
		expect(typeof state.sessionId).toBe("string");
	});

	it("reads sourceInfo of every command", async () => {
		const { client, template, guard } = await startPiClient();
		expect(await client.getCommands()).toEqual([
			{
				name: "save",
				description: "Mark the work as saved",
				source: "extension",
				path: resolve(guard),
				sourceInfo: { path: resolve(guard), source: "cli", scope: "temporary", origin: "top-level" },
			},
			{
				name: "review",
				description: "Review a file",
				source: "prompt",
				location: "user",
				path: template,
				sourceInfo: { path: template, source: "local", scope: "user", origin: "top-level", baseDir: dirname(template) },
			},
		]);
	});

	it("reads the compaction's summary, with customInstructions as its focus", async () => {
		const { client } = await startPiClient();
		harness.server.enqueue(textReply("ok"), textReply("done", { usage: { input: 1000, output: 10 } }));
		await client.promptAndWait(THIRTY_LINES);
		await client.promptAndWait("second");
		harness.server.enqueue(textReply("2,10\n20,25"));
		const result = await client.compact("the second part");
		expect(result.summary.startsWith("[User]: line 1\n(filtered 9 lines)\n")).toBe(true);
		expect(result.summary).toBe((result as unknown as { compactedText: string }).compactedText);
		expect(typeof result.firstKeptEntryId).toBe("string");
		expect(result.tokensBefore).toBe(1010);
		const planner = JSON.stringify(harness.server.requests[2]?.body);
		expect(planner).toContain("Relevance focus: the second part");
	});
});
