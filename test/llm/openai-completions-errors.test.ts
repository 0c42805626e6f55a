import { describe, expect, it, vi } from "vitest";
import { streamModel } from "../../src/llm/registry.js";
import { LlmServer } from "../support/llm-server.js";
import { testModel } from "../support/models.js";
import { sse } from "../support/wire/index.js";
import { openaiCompletionsWire } from "../support/wire/openai-completions.js";
import { errorClass } from "./error-helpers.js";
import { hello, useLlmServer } from "./openai-test-helpers.js";

const API = "openai-completions";
const ctx = useLlmServer();

describe("openai-completions HTTP and connection errors", () => {
	it.each([
		[429, "429 Rate limit exceeded"],
		[500, "500 Internal server error"],
		[503, "503 Internal server error"],
	])("reports HTTP %i with the status first, as transient", async (status, expected) => {
		ctx.server.enqueue({ status });
		const message = await streamModel(testModel(ctx.server, API), hello).result();
		expect(message.stopReason).toBe("error");
		expect(message.errorMessage).toBe(expected);
		expect(errorClass(message)).toBe("transient");
	});

	it("reports a rejected key (401) as permanent", async () => {
		ctx.server.enqueue({ status: 401, errorMessage: "Incorrect API key provided: sk-bad." });
		const message = await streamModel(testModel(ctx.server, API), hello, { apiKey: "sk-bad" }).result();
		expect(message.errorMessage).toBe("401 Incorrect API key provided: sk-bad.");
		expect(errorClass(message)).toBe("permanent");
	});

	it("recognises a context overflow", async () => {
		const text =
			"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.";
		ctx.server.enqueue({ status: 400, errorMessage: text });
		const message = await streamModel(testModel(ctx.server, API), hello).result();
		expect(message.errorMessage).toBe(`400 ${text}`);
		expect(message.error?.kind).toBe("context_overflow");
		expect(errorClass(message)).toBe("context_overflow");
	});

	it("ends with a transient error when the connection drops mid-stream", async () => {
		ctx.server.enqueue({ blocks: [{ type: "text", text: "abcdef", chunks: 6 }], fault: "reset", faultAfterFrames: 3 });
		const message = await streamModel(testModel(ctx.server, API), hello).result();
		expect(message.stopReason).toBe("error");
		expect(errorClass(message)).toBe("transient");
	});
});

describe("openai-completions errors", () => {
	const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
		sse({
			id: "c",
			object: "chat.completion.chunk",
			created: 1,
			model: "m",
			choices: [{ index: 0, delta, finish_reason: finishReason }],
		});

	it("ends with the provider's message when the stream reports an error (OpenRouter style)", async () => {
		const error = sse({
			id: "c",
			object: "chat.completion.chunk",
			created: 1,
			model: "m",
			choices: [],
			error: { code: 502, message: "Upstream provider error" },
		});
		vi.spyOn(openaiCompletionsWire, "frames").mockReturnValueOnce([chunk({ content: "Part" }), error]);
		const message = await streamModel(testModel(ctx.server, API), hello).result();
		expect(message.stopReason).toBe("error");
		expect(message.errorMessage).toBe("502 Upstream provider error");
		expect(message.content).toEqual([{ type: "text", text: "Part" }]);
		expect(errorClass(message)).toBe("transient");
	});

	it("treats finish_reason content_filter as an error", async () => {
		vi.spyOn(openaiCompletionsWire, "frames").mockReturnValueOnce([
			chunk({ content: "Pa" }, "content_filter"),
			"data: [DONE]\n\n",
		]);
		const message = await streamModel(testModel(ctx.server, API), hello).result();
		expect(message.stopReason).toBe("error");
		expect(message.errorMessage).toBe(
			"The provider's content filter stopped the reply (finish_reason: content_filter)",
		);
	});

	it("fails, as transient, when the stream ends with [DONE] but brought nothing", async () => {
		vi.spyOn(openaiCompletionsWire, "frames").mockReturnValueOnce([chunk({ role: "assistant" }), "data: [DONE]\n\n"]);
		const message = await streamModel(testModel(ctx.server, API), hello).result();
		expect(message.errorMessage).toBe("Provider stream ended without a finish reason or any content");
		expect(errorClass(message)).toBe("transient");
	});

	it("quotes an error body that is not shaped like OpenAI's (vLLM)", async () => {
		const body = {
			object: "error",
			message: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.",
			type: "BadRequestError",
			param: null,
			code: 400,
		};
		vi.spyOn(openaiCompletionsWire, "errorBody").mockReturnValueOnce(body);
		ctx.server.enqueue({ status: 400 });
		const message = await streamModel(testModel(ctx.server, API), hello).result();
		expect(message.errorMessage).toBe(`400 ${JSON.stringify(body)}`);
		expect(message.error?.kind).toBe("context_overflow");
	});

	it("reports a refused connection as transient", async () => {
		const closed = await LlmServer.start();
		const model = testModel(closed, API);
		await closed.close();
		const message = await streamModel(model, hello).result();
		expect(message.stopReason).toBe("error");
		expect(message.errorMessage).toBe("Connection error.");
		expect(errorClass(message)).toBe("transient");
	});

	it("takes tool calls without a finish reason of tool_calls as a tool turn (Ollama)", async () => {
		vi.spyOn(openaiCompletionsWire, "frames").mockReturnValueOnce([
			chunk({ tool_calls: [{ index: 0, id: "call_9", type: "function", function: { name: "ls", arguments: "{}" } }] }),
			chunk({}, "stop"),
			"data: [DONE]\n\n",
		]);
		const message = await streamModel(testModel(ctx.server, API), hello).result();
		expect(message.stopReason).toBe("toolUse");
		expect(message.content).toEqual([{ type: "toolCall", id: "call_9", name: "ls", arguments: {} }]);
	});
});
