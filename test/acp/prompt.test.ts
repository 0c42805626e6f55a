import { RequestError } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { anthropicBody, transcript } from "../rpc/helpers.js";
import { textReply } from "../support/llm-server.js";
import { sse } from "../support/wire/index.js";
import { useAcpHarness } from "./helpers.js";

const harness = useAcpHarness();

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==";

/** An Anthropic stream that ends with stop_reason "refusal". */
function refusalFrames(): string[] {
	return [
		sse(
			{
				type: "message_start",
				message: {
					id: "msg_refusal",
					type: "message",
					role: "assistant",
					model: "mock-model",
					content: [],
					stop_reason: null,
					usage: { input_tokens: 5, output_tokens: 0 },
				},
			},
			"message_start",
		),
		sse({ type: "message_delta", delta: { stop_reason: "refusal" }, usage: { output_tokens: 1 } }, "message_delta"),
		sse({ type: "message_stop" }, "message_stop"),
	];
}

describe("ACP prompts", () => {
	it("streams text and thinking as chunks of one message and ends the turn", async () => {
		harness.server.enqueue({
			blocks: [
				{ type: "thinking", text: "Let me think.", chunks: 2 },
				{ type: "text", text: "Hello there, editor.", chunks: 3 },
			],
			usage: { input: 100, output: 20 },
		});
		const { client, dirs } = await harness.start({ args: ["--model", "mock/mock-reasoner", "--thinking", "high"] });
		const sessionId = await client.newSession(dirs.work);
		const response = await client.agent.request("session/prompt", {
			sessionId,
			prompt: [{ type: "text", text: "Say hello" }],
		});
		expect(response.stopReason).toBe("end_turn");
		expect(client.text(sessionId, "agent_message_chunk")).toBe("Hello there, editor.");
		expect(client.text(sessionId, "agent_thought_chunk")).toBe("Let me think.");
		const chunks = client.updates(sessionId).filter((update) => update.sessionUpdate === "agent_message_chunk");
		expect(chunks.length).toBe(3);
		const ids = new Set(chunks.map((chunk) => ("messageId" in chunk ? chunk.messageId : undefined)));
		expect(ids.size).toBe(1);
		// Usage came before the response, with the context window and cost.
		const usage = client.updates(sessionId).find((update) => update.sessionUpdate === "usage_update");
		expect(usage).toMatchObject({ used: 120, size: 200_000, cost: { currency: "USD" } });
		expect(transcript(harness.server.requests[0])).toEqual(["user: Say hello"]);
	});

	it("ends with max_tokens when the reply hit the output limit", async () => {
		harness.server.enqueue(textReply("cut off", { stopReason: "length" }));
		const { client, dirs } = await harness.start();
		const sessionId = await client.newSession(dirs.work);
		const response = await client.agent.request("session/prompt", {
			sessionId,
			prompt: [{ type: "text", text: "go" }],
		});
		expect(response.stopReason).toBe("max_tokens");
	});

	it("ends with refusal when the provider refused", async () => {
		harness.server.enqueue({ raw: refusalFrames() });
		const { client, dirs } = await harness.start({ settings: { retry: { enabled: false } } });
		const sessionId = await client.newSession(dirs.work);
		const response = await client.agent.request("session/prompt", {
			sessionId,
			prompt: [{ type: "text", text: "go" }],
		});
		expect(response.stopReason).toBe("refusal");
	});

	it("answers a provider failure with a JSON-RPC error carrying its message", async () => {
		harness.server.enqueue({ status: 400, errorMessage: "prompt is malformed" });
		const { client, dirs } = await harness.start({ settings: { retry: { enabled: false } } });
		const sessionId = await client.newSession(dirs.work);
		const error = await client.agent
			.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] })
			.then(
				() => undefined,
				(reason: unknown) => reason,
			);
		expect(error).toBeInstanceOf(RequestError);
		expect(error instanceof RequestError ? error.message : "").toContain("prompt is malformed");
	});

	it("sends images, embedded resources and linked files to the model", async () => {
		harness.server.enqueue(textReply("seen"));
		const { client, dirs } = await harness.start();
		const { writeFileSync } = await import("node:fs");
		const linked = `${dirs.work}/notes.md`;
		writeFileSync(linked, "# Notes\nlinked file body\n");
		const sessionId = await client.newSession(dirs.work);
		await client.agent.request("session/prompt", {
			sessionId,
			prompt: [
				{ type: "text", text: "Look at " },
				{ type: "resource", resource: { uri: `file://${dirs.work}/app.ts`, text: "const embedded = 1;" } },
				{ type: "text", text: " and " },
				{ type: "resource_link", uri: `file://${linked}`, name: "notes.md" },
				{ type: "image", data: PNG, mimeType: "image/png" },
			],
		});
		const body = anthropicBody(harness.server.requests[0]);
		const content = body.messages[0]?.content;
		expect(Array.isArray(content)).toBe(true);
		const blocks = Array.isArray(content) ? content : [];
		const text = blocks.flatMap((block) => (block.type === "text" ? [block.text ?? ""] : [])).join("");
		expect(text).toContain(`Look at @${dirs.work}/app.ts and @${linked}`);
		expect(text).toContain("const embedded = 1;");
		expect(text).toContain("linked file body");
		expect(blocks.some((block) => block.type === "image" && block.source?.data === PNG)).toBe(true);
	});

	it("queues a prompt sent while one runs as steering; both answer when the run settles", async () => {
		harness.server.enqueue(
			{ blocks: [{ type: "text", text: "first reply, slowly", chunks: 8 }], delayMs: 100 },
			textReply("second reply"),
		);
		const { client, dirs } = await harness.start();
		const sessionId = await client.newSession(dirs.work);
		const first = client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "one" }] });
		await client.waitForUpdate(sessionId, (update) => update.sessionUpdate === "agent_message_chunk", "first chunk");
		const second = client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "two" }] });
		const [a, b] = await Promise.all([first, second]);
		expect(a.stopReason).toBe("end_turn");
		expect(b.stopReason).toBe("end_turn");
		expect(harness.server.requests.length).toBe(2);
		expect(transcript(harness.server.requests[1])).toEqual([
			"user: one",
			"assistant: first reply, slowly",
			"user: two",
		]);
	});

	it("cancel mid-stream stops the run and answers the prompt with cancelled", async () => {
		harness.server.enqueue({ blocks: [{ type: "text", text: "a long reply ".repeat(40), chunks: 40 }], delayMs: 200 });
		const { client, dirs } = await harness.start();
		const sessionId = await client.newSession(dirs.work);
		const prompt = client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "talk" }] });
		await client.waitForUpdate(sessionId, (update) => update.sessionUpdate === "agent_message_chunk", "a chunk");
		await client.agent.notify("session/cancel", { sessionId });
		expect((await prompt).stopReason).toBe("cancelled");
		// The session takes the next prompt.
		harness.server.enqueue(textReply("after"));
		const next = await client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "again" }] });
		expect(next.stopReason).toBe("end_turn");
	});
});
