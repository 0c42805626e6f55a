import { describe, expect, it } from "vitest";
import { type RpcClient, RpcCommandError, type RpcEvent, RpcTimeoutError } from "../../src/index.js";
import { type ScriptedReply, textReply, toolReply } from "../support/llm-server.js";
import { replyText } from "../support/reply-text.js";
import { OBSERVATION_EVENTS } from "../support/rpc-process.js";
import { nextEvent, startClient, useClientHarness, useSharedClient } from "./helpers.js";

const harness = useClientHarness();

/** A text reply streamed in three pieces. */
const HELLO: ScriptedReply = { blocks: [{ type: "text", text: "hello there", chunks: 3 }] };

/** The event types of one plain prompt answered with HELLO. */
const PLAIN_RUN = [
	"agent_start",
	"turn_start",
	"message_start",
	"message_end",
	"message_start",
	"message_update",
	"message_update",
	"message_update",
	"message_update",
	"message_update",
	"message_update",
	"message_end",
	"turn_end",
	"agent_end",
	"agent_settled",
];

/** Event types without those that only describe the agent's state (their own tests cover them). */
function runTypes(types: string[]): string[] {
	return types.filter((type) => !OBSERVATION_EVENTS.has(type));
}

async function startStalledRun(client: RpcClient): Promise<void> {
	harness.server.enqueue({ ...textReply("never finished"), fault: "stall", faultAfterFrames: 3 });
	const streaming = nextEvent(client, "message_update");
	await client.prompt("first");
	await streaming;
}

describe("onEvent", () => {
	it("delivers ready first, then a run's events in order; the removal stops delivery", async () => {
		const { client } = await startClient(harness.server, { start: false });
		const seen: RpcEvent[] = [];
		const stop = client.onEvent((event) => seen.push(event));
		const ready = await client.start();
		expect(seen).toEqual([ready]);
		expect(ready).toMatchObject({ type: "ready", protocolVersion: 1, pid: client.pid });
		expect(ready.capabilities).toEqual(expect.arrayContaining(["prompt", "get_state", "navigate_tree"]));
		expect(client.supports("compact")).toBe(true);
		expect(client.supports("context_compact")).toBe(false);
		harness.server.enqueue(HELLO);
		await client.promptAndWait("hi");
		expect(runTypes(seen.slice(1).map((event) => event.type))).toEqual(PLAIN_RUN);
		expect(replyText(seen)).toBe("hello there");
		stop();
		const count = seen.length;
		await client.promptAndWait("again");
		expect(seen).toHaveLength(count);
	});

	it("a listener that throws does not stop the others; its error goes to onError", async () => {
		const { client, errors } = await startClient(harness.server);
		client.onEvent(() => {
			throw new Error("listener bug");
		});
		const types: string[] = [];
		client.onEvent((event) => types.push(event.type));
		harness.server.enqueue(HELLO);
		await client.promptAndWait("hi");
		expect(runTypes(types)).toEqual(PLAIN_RUN);
		expect(errors.map((error) => error.message)).toEqual(types.map(() => "listener bug"));
	});
});

describe("events()", () => {
	it("iterates a run's events; leaving the loop unsubscribes", async () => {
		const { client } = await startClient(harness.server);
		const iterator = client.events();
		harness.server.enqueue(HELLO);
		await client.prompt("hi");
		const seen: RpcEvent[] = [];
		for await (const event of iterator) {
			seen.push(event);
			if (event.type === "agent_settled") break;
		}
		expect(runTypes(seen.map((event) => event.type))).toEqual(PLAIN_RUN);
		expect(replyText(seen)).toBe("hello there");
		await client.promptAndWait("again");
		expect(await iterator.next()).toEqual({ done: true, value: undefined });
	});

	it("ends when the process exits, after the events it buffered", async () => {
		const { client } = await startClient(harness.server);
		const iterator = client.events();
		harness.server.enqueue(HELLO);
		await client.promptAndWait("hi");
		expect(await client.close()).toEqual({ code: 0, signal: null });
		const types: string[] = [];
		for await (const event of iterator) types.push(event.type);
		expect(runTypes(types)).toEqual(PLAIN_RUN);
		expect(await client.events().next()).toEqual({ done: true, value: undefined });
	});
});

describe("promptAndWait and waitForIdle", () => {
	it("returns the messages of the whole lifecycle: a tool call, then a follow-up queued during it", async () => {
		const { client } = await startClient(harness.server);
		harness.server.enqueue(toolReply("bash", { command: "echo hi" }), textReply("ran it"), textReply("followed up"));
		let queued: Promise<"queued"> | undefined;
		client.onEvent((event) => {
			if (event.type === "tool_execution_start") queued = client.followUp("and then?");
		});
		const outcome = await client.promptAndWait("run it");
		expect(await queued).toBe("queued");
		const summary = outcome.messages.map((message) => {
			if (message.role === "user") return `user: ${JSON.stringify(message.content)}`;
			if (message.role === "assistant")
				return `assistant: ${message.content.map((block) => (block.type === "text" ? block.text : block.type === "toolCall" ? `${block.name}(${JSON.stringify(block.arguments)})` : block.type)).join("")}`;
			if (message.role === "toolResult")
				return `toolResult: ${message.content.map((block) => (block.type === "text" ? block.text : "")).join("")}`;
			return message.role;
		});
		expect(summary).toEqual([
			'user: [{"type":"text","text":"run it"}]',
			'assistant: bash({"command":"echo hi"})',
			"toolResult: hi",
			"assistant: ran it",
			'user: [{"type":"text","text":"and then?"}]',
			"assistant: followed up",
		]);
		expect(outcome.events.at(-1)?.type).toBe("agent_settled");
		expect(outcome.events.filter((event) => event.type === "agent_settled")).toHaveLength(1);
		expect(await client.getMessages()).toEqual(outcome.messages);
	});

	it("a prompt accepted without a run (queued while paused) resolves with nothing", async () => {
		const { client } = await startClient(harness.server);
		await client.pauseQueuedMessages();
		const outcome = await client.promptAndWait("later");
		expect(outcome.messages).toEqual([]);
		expect(outcome.events.some((event) => event.type === "agent_start")).toBe(false);
		expect((await client.getState()).pendingMessageCount).toBe(1);
	});
});

// Each of these starts a stalled run and ends it with an abort, which answers once the agent is idle again.
describe("waiting on a stalled run", () => {
	const shared = useSharedClient(harness);

	it("rejects a refused prompt with RpcCommandError", async () => {
		const { client } = shared;
		await startStalledRun(client);
		await expect(client.promptAndWait("second")).rejects.toBeInstanceOf(RpcCommandError);
		await client.abort();
	});

	it("times out when asked to, and the agent keeps running", async () => {
		const { client } = shared;
		await startStalledRun(client);
		const idle = client.waitForIdle({ timeoutMs: 150 });
		await expect(idle).rejects.toBeInstanceOf(RpcTimeoutError);
		await expect(idle).rejects.toThrow("Timed out after 150 ms waiting for agent_settled");
		expect((await client.getState()).isStreaming).toBe(true);
		await client.abort();
	});

	it("waitForIdle resolves at once when idle, else at the next agent_settled", async () => {
		const { client } = shared;
		await expect(client.waitForIdle()).resolves.toBeUndefined();
		await startStalledRun(client);
		let idle = false;
		const waiting = client.waitForIdle().then(() => {
			idle = true;
		});
		expect((await client.getState()).isStreaming).toBe(true);
		expect(idle).toBe(false);
		const settled = nextEvent(client, "agent_settled");
		await client.abort();
		await settled;
		await waiting;
		expect(idle).toBe(true);
	});
});
