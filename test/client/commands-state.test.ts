import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type RpcClient, RpcCommandError } from "../../src/index.js";
import { type ScriptedReply, textReply } from "../support/llm-server.js";
import { nextEvent, startClient, useClientHarness, useSharedClient } from "./helpers.js";

const harness = useClientHarness();

/** A reply that streams a little and then hangs until the request is aborted. */
const STALLED: ScriptedReply = {
	blocks: [{ type: "text", text: "working on it", chunks: 3 }],
	fault: "stall",
	faultAfterFrames: 3,
};

const BUSY = "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.";

/**
 * Starts a prompt whose reply hangs and resolves once the reply streams. (Aborting earlier, while
 * the first request of the process is still loading the provider SDK, currently hangs the server.)
 */
async function startStalledRun(client: RpcClient, message = "first"): Promise<void> {
	harness.server.enqueue(STALLED);
	const streaming = nextEvent(client, "message_update");
	expect(await client.prompt(message)).toBe("started");
	await streaming;
}

/** Rejects with RpcCommandError carrying this command and text. */
async function expectCommandError(promise: Promise<unknown>, command: string, errorText: string): Promise<void> {
	const error = await promise.then(
		() => undefined,
		(reason: unknown) => reason,
	);
	expect(error).toBeInstanceOf(RpcCommandError);
	expect(error).toMatchObject({ command, errorText, message: `${command} failed: ${errorText}` });
}

describe("prompting and the queue", () => {
	it("prompt resolves at acceptance and rejects a refused prompt instead of hiding it", async () => {
		const { client } = await startClient(harness.server);
		await expect(startStalledRun(client)).resolves.toBeUndefined();
		expect((await client.getState()).isStreaming).toBe(true);
		await expectCommandError(client.prompt("second"), "prompt", BUSY);
		await client.abort();
		await client.waitForIdle();
		expect(await client.getState()).toMatchObject({ isStreaming: false, messageCount: 2 });
	});

	it("steer, followUp and a queued prompt show in queue_update; clearQueue returns them", async () => {
		const { client } = await startClient(harness.server);
		await startStalledRun(client);
		await expect(client.steer("look here")).resolves.toBe("queued");
		await expect(client.followUp("then this")).resolves.toBe("queued");
		const update = nextEvent(client, "queue_update");
		expect(await client.prompt("and finally", { streamingBehavior: "followUp" })).toBe("queued");
		expect(await update).toMatchObject({ steering: ["look here"], followUp: ["then this", "and finally"] });
		expect(await client.clearQueue()).toEqual({ steering: ["look here"], followUp: ["then this", "and finally"] });
		expect(await client.clearQueue()).toEqual({ steering: [], followUp: [] });
		await client.abort();
	});

	it("pauseQueuedMessages queues even an idle prompt until resumeQueuedMessages", async () => {
		const { client } = await startClient(harness.server);
		await expect(client.pauseQueuedMessages()).resolves.toBeUndefined();
		expect((await client.getState()).queuedMessagesPaused).toBe(true);
		await client.prompt("held back");
		expect(await client.getState()).toMatchObject({ isStreaming: false, pendingMessageCount: 1, messageCount: 0 });
		harness.server.enqueue(textReply("released"));
		const settled = nextEvent(client, "agent_settled");
		expect(await client.resumeQueuedMessages()).toEqual({ released: true });
		await settled;
		expect(await client.getLastAssistantText()).toBe("released");
		expect(await client.resumeQueuedMessages()).toEqual({ released: false });
	});
});

describe("state and models", () => {
	it("getState, getMessages, getLastAssistantText and getSessionStats after a prompt", async () => {
		const { client } = await startClient(harness.server);
		expect(await client.getLastAssistantText()).toBeNull();
		harness.server.enqueue(textReply("hello there"));
		await client.promptAndWait("hi");
		const messages = await client.getMessages();
		expect(messages.map((message) => message.role)).toEqual(["user", "assistant"]);
		expect(messages[0]).toMatchObject({ role: "user", content: [{ type: "text", text: "hi" }] });
		expect(messages[1]).toMatchObject({ role: "assistant", content: [{ type: "text", text: "hello there" }] });
		expect(await client.getLastAssistantText()).toBe("hello there");
		const state = await client.getState();
		expect(state).toMatchObject({ isStreaming: false, messageCount: 2, thinkingLevel: "off" });
		expect(state.model).toMatchObject({ provider: "mock", id: "mock-model" });
		expect(await client.getSessionStats()).toMatchObject({ userMessages: 1, assistantMessages: 1, totalMessages: 2 });
	});

	it("setAutoCompaction shows in the state; setAutoRetry(false) lets a 529 fail at once; abortRetry", async () => {
		const { client } = await startClient(harness.server);
		await expect(client.setAutoCompaction(false)).resolves.toBeUndefined();
		expect((await client.getState()).autoCompactionEnabled).toBe(false);
		await expect(client.setAutoRetry(false)).resolves.toBeUndefined();
		await expect(client.abortRetry()).resolves.toBeUndefined();
		harness.server.enqueue({ status: 529 });
		const { events, messages } = await client.promptAndWait("hi");
		expect(events.some((event) => event.type === "auto_retry_start")).toBe(false);
		expect(messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "error" });
		expect(harness.server.requests).toHaveLength(1);
	});

	it("getCommands lists prompt templates", async () => {
		const { client } = await startClient(harness.server, {
			prepare: (dirs) => {
				mkdirSync(join(dirs.agentDir, "prompts"), { recursive: true });
				writeFileSync(join(dirs.agentDir, "prompts", "review.md"), "---\ndescription: Review a file\n---\nReview $1\n");
			},
		});
		expect(await client.getCommands()).toEqual([
			{
				name: "review",
				description: "Review a file",
				source: "prompt",
				location: "user",
				path: expect.stringContaining("review.md"),
				sourceInfo: expect.objectContaining({ source: "local", scope: "user", origin: "top-level" }),
			},
		]);
	});

	it("exportHtml writes to an explicit path; without one an in-memory session is refused", async () => {
		const { client, dirs } = await startClient(harness.server);
		await client.promptAndWait("hi");
		await expectCommandError(
			client.exportHtml(),
			"export_html",
			"Cannot export in-memory session to HTML without an outputPath",
		);
		const target = join(dirs.work, "out.html");
		expect(await client.exportHtml(target)).toBe(target);
		expect(existsSync(target)).toBe(true);
	});
});

// Each of these sets what no later one reads: the queue modes, the name, the model (the levels test,
// which starts on the default model, comes before the one that changes it).
describe("settings on one agent", () => {
	const shared = useSharedClient(harness);

	it("setSteeringMode and setFollowUpMode change the state; an unknown mode is refused", async () => {
		const { client } = shared;
		await expect(client.setSteeringMode("all")).resolves.toBeUndefined();
		await expect(client.setFollowUpMode("all")).resolves.toBeUndefined();
		expect(await client.getState()).toMatchObject({ steeringMode: "all", followUpMode: "all" });
		await expectCommandError(
			client.request({ type: "set_follow_up_mode", mode: "sometimes" as "all" }),
			"set_follow_up_mode",
			'Invalid "set_follow_up_mode" command: field "mode" must be one of "all", "one-at-a-time"',
		);
	});

	it("thinking levels: set, cycle, list; a non-level is refused", async () => {
		const { client } = shared;
		expect(await client.getAvailableThinkingLevels()).toEqual(["off"]);
		expect(await client.cycleThinkingLevel()).toBeNull();
		await client.setModel("mock", "mock-reasoner");
		expect(await client.getAvailableThinkingLevels()).toEqual(["off", "minimal", "low", "medium", "high"]);
		await expect(client.setThinkingLevel("low")).resolves.toBeUndefined();
		expect((await client.getState()).thinkingLevel).toBe("low");
		expect(await client.cycleThinkingLevel()).toEqual({ level: "medium" });
		await expectCommandError(
			client.request({ type: "set_thinking_level", level: "extreme" as "high" }),
			"set_thinking_level",
			'Invalid "set_thinking_level" command: field "level" must be one of "off", "minimal", "low", "medium", "high", "xhigh", "max"',
		);
	});

	it("setModel returns the model or rejects an unknown one; cycleModel goes both ways", async () => {
		const { client } = shared;
		expect(await client.setModel("mock", "mock-reasoner")).toMatchObject({ provider: "mock", id: "mock-reasoner" });
		await expectCommandError(client.setModel("nope", "nothing"), "set_model", "Model not found: nope/nothing");
		expect(await client.cycleModel()).toMatchObject({
			model: { provider: "mockoai", id: "mock-model" },
			isScoped: false,
		});
		expect(await client.cycleModel("backward")).toMatchObject({ model: { provider: "mock", id: "mock-reasoner" } });
	});

	it("logoutProvider reports what still authenticates the provider", async () => {
		const { client } = shared;
		const result = await client.logoutProvider("mock");
		expect(result.provider).toBe("mock");
		expect(result.authStatus).toEqual({ configured: true, source: "models.json" });
		expect(result.models.map((model) => `${model.provider}/${model.id}`)).toEqual([
			"mock/mock-model",
			"mock/mock-reasoner",
			"mockoai/mock-model",
			"mockoai/mock-reasoner",
		]);
	});

	it("setSessionName shows in the state; an empty name is refused", async () => {
		const { client } = shared;
		await expect(client.setSessionName("my work")).resolves.toBeUndefined();
		expect((await client.getState()).sessionName).toBe("my work");
		await expectCommandError(client.setSessionName(""), "set_session_name", "Session name cannot be empty");
	});
});
