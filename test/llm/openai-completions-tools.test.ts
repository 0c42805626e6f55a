/**
 * Tool calls and stream ends as OpenAI-compatible servers send them: parallel calls interleaved,
 * ids missing or repeated, arguments whole in one chunk, no finish reason at all, and streams cut
 * short, through the loopback server into the official SDK.
 */
import { describe, expect, it } from "vitest";
import { streamModel } from "../../src/llm/registry.js";
import type { AssistantMessage, ToolCall } from "../../src/llm/types.js";
import { testModel } from "../support/models.js";
import { chunk, DONE, emptyChunk, toolDelta, usage } from "./completions-fixtures.js";
import { errorClass } from "./error-helpers.js";
import { hello, useLlmServer } from "./openai-test-helpers.js";

const ctx = useLlmServer();

async function replyTo(raw: string[], fault?: { afterFrames: number }): Promise<AssistantMessage> {
	ctx.server.enqueue({ raw, ...(fault ? { fault: "reset", faultAfterFrames: fault.afterFrames } : {}) });
	return streamModel(testModel(ctx.server, "openai-completions"), hello).result();
}

function calls(message: AssistantMessage): ToolCall[] {
	return message.content.filter((block): block is ToolCall => block.type === "toolCall");
}

describe("chat completions tool calls", () => {
	it("keeps parallel tool calls apart when their indices interleave (OpenAI)", async () => {
		const message = await replyTo([
			chunk({ role: "assistant", content: null }),
			chunk({ tool_calls: [toolDelta(0, { id: "call_a", name: "read", arguments: "" })] }),
			chunk({ tool_calls: [toolDelta(1, { id: "call_b", name: "ls", arguments: "" })] }),
			chunk({ tool_calls: [toolDelta(0, { arguments: '{"pa' })] }),
			chunk({ tool_calls: [toolDelta(1, { arguments: '{"path":' })] }),
			chunk({ tool_calls: [toolDelta(0, { arguments: 'th":"a.ts"}' })] }),
			chunk({ tool_calls: [toolDelta(1, { arguments: '"src"}' })] }),
			chunk({}, { finish: "tool_calls" }),
			emptyChunk({ usage: usage(50, 40) }),
			DONE,
		]);
		expect(message.stopReason).toBe("toolUse");
		expect(calls(message)).toEqual([
			{ type: "toolCall", id: "call_a", name: "read", arguments: { path: "a.ts" } },
			{ type: "toolCall", id: "call_b", name: "ls", arguments: { path: "src" } },
		]);
		expect(message.usage).toMatchObject({ input: 50, output: 40 });
	});

	it("takes arguments sent whole in one chunk, as a string or as an object (Ollama, vLLM)", async () => {
		const message = await replyTo([
			chunk({
				role: "assistant",
				content: "",
				tool_calls: [
					toolDelta(0, { id: "call_1", name: "read", arguments: '{"path":"README.md"}' }),
					toolDelta(1, { id: "call_2", name: "grep", arguments: { pattern: "TODO" } }),
				],
			}),
			chunk({ content: "" }, { finish: "tool_calls" }),
			DONE,
		]);
		expect(calls(message)).toEqual([
			{ type: "toolCall", id: "call_1", name: "read", arguments: { path: "README.md" } },
			{ type: "toolCall", id: "call_2", name: "grep", arguments: { pattern: "TODO" } },
		]);
	});

	it("gives calls without ids unique ids of their own (llama.cpp, older local servers)", async () => {
		const message = await replyTo([
			chunk({ role: "assistant", tool_calls: [toolDelta(0, { name: "ls", arguments: "{}" })] }),
			chunk({ tool_calls: [toolDelta(1, { name: "ls", arguments: '{"path":"src"}' })] }),
			chunk({}, { finish: "tool_calls" }),
			DONE,
		]);
		const [first, second] = calls(message);
		expect(first?.id).toMatch(/^call_/);
		expect(second?.id).toMatch(/^call_/);
		expect(first?.id).not.toBe(second?.id);
		expect(second?.arguments).toEqual({ path: "src" });
	});

	it("makes a repeated id unique so each result pairs with its own call", async () => {
		const message = await replyTo([
			chunk({ role: "assistant", tool_calls: [toolDelta(0, { id: "call_0", name: "ls", arguments: "{}" })] }),
			chunk({ tool_calls: [toolDelta(1, { id: "call_0", name: "read", arguments: '{"path":"a"}' })] }),
			chunk({}, { finish: "tool_calls" }),
			DONE,
		]);
		const ids = calls(message).map((call) => call.id);
		expect(ids[0]).toBe("call_0");
		expect(new Set(ids).size).toBe(2);
		expect(calls(message).map((call) => call.name)).toEqual(["ls", "read"]);
	});

	it("separates calls that all arrive at index 0 with their own ids (Gemini's compatible endpoint)", async () => {
		const message = await replyTo([
			chunk({ role: "assistant", tool_calls: [toolDelta(0, { id: "fc_1", name: "ls", arguments: '{"path":"a"}' })] }),
			chunk({ tool_calls: [toolDelta(0, { id: "fc_2", name: "ls", arguments: '{"path":"b"}' })] }),
			chunk({}, { finish: "tool_calls" }),
			DONE,
		]);
		expect(calls(message)).toEqual([
			{ type: "toolCall", id: "fc_1", name: "ls", arguments: { path: "a" } },
			{ type: "toolCall", id: "fc_2", name: "ls", arguments: { path: "b" } },
		]);
	});

	it("continues one call when every chunk repeats its id and name (some proxies)", async () => {
		const delta = (args: string) => toolDelta(0, { id: "call_x", name: "read", arguments: args });
		const message = await replyTo([
			chunk({ role: "assistant", tool_calls: [delta('{"path"')] }),
			chunk({ tool_calls: [delta(':"x"}')] }),
			chunk({}, { finish: "tool_calls" }),
			DONE,
		]);
		expect(calls(message)).toEqual([{ type: "toolCall", id: "call_x", name: "read", arguments: { path: "x" } }]);
	});
});

describe("chat completions stream ends", () => {
	it("takes tool calls ended by [DONE] without a finish reason as a tool turn (OpenRouter)", async () => {
		const message = await replyTo([
			chunk({ role: "assistant", content: "" }),
			chunk({ content: "Let me look." }),
			chunk({ tool_calls: [toolDelta(0, { id: "call_or", name: "ls", arguments: "" })] }),
			chunk({ tool_calls: [toolDelta(0, { arguments: '{"path":"."}' })] }),
			emptyChunk({ usage: usage(30, 12) }),
			DONE,
		]);
		expect(message.stopReason).toBe("toolUse");
		expect(errorClass(message)).toBe("none");
		expect(message.content).toEqual([
			{ type: "text", text: "Let me look." },
			{ type: "toolCall", id: "call_or", name: "ls", arguments: { path: "." } },
		]);
		expect(message.usage).toMatchObject({ input: 30, output: 12 });
	});

	it("takes text ended by a clean end of the body, without [DONE] or a finish reason, as a stop", async () => {
		const message = await replyTo([chunk({ role: "assistant", content: "All " }), chunk({ content: "done." })]);
		expect(message.stopReason).toBe("stop");
		expect(message.content).toEqual([{ type: "text", text: "All done." }]);
	});

	it("keeps a stream cut mid-content (no [DONE], connection closed) an error worth a retry", async () => {
		const message = await replyTo(
			[chunk({ role: "assistant", content: "All " }), chunk({ content: "do" }), chunk({ content: "ne." }), DONE],
			{ afterFrames: 2 },
		);
		expect(message.stopReason).toBe("error");
		expect(errorClass(message)).toBe("transient");
		expect(message.error?.kind).toBe("network");
	});

	it("fails, as transient, a stream that ends inside a tool call's arguments", async () => {
		const message = await replyTo([
			chunk({
				role: "assistant",
				tool_calls: [toolDelta(0, { id: "call_1", name: "write", arguments: '{"path":"a' })],
			}),
			DONE,
		]);
		expect(message.stopReason).toBe("error");
		expect(message.errorMessage).toBe("Provider stream ended inside a tool call's arguments");
		expect(errorClass(message)).toBe("transient");
	});

	it("maps finish_reason length to length, even with a tool call cut short (max_tokens)", async () => {
		const message = await replyTo([
			chunk({ role: "assistant", tool_calls: [toolDelta(0, { id: "call_1", name: "write", arguments: '{"pa' })] }),
			chunk({}, { finish: "length" }),
			DONE,
		]);
		expect(message.stopReason).toBe("length");
	});
});
