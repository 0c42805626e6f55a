import { describe, expect, it, vi } from "vitest";
import { streamModel } from "../../src/llm/registry.js";
import type { AssistantMessage } from "../../src/llm/types.js";
import { testModel } from "../support/models.js";
import { sse } from "../support/wire/index.js";
import { openaiResponsesWire } from "../support/wire/openai-responses.js";
import { errorClass } from "./error-helpers.js";
import { hello, useLlmServer } from "./openai-test-helpers.js";

const API = "openai-responses";
const ctx = useLlmServer();

describe("openai-responses HTTP errors", () => {
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
		const text = "Your input exceeds the context window of this model. Please adjust your input and try again.";
		ctx.server.enqueue({ status: 400, errorMessage: text });
		const message = await streamModel(testModel(ctx.server, API), hello).result();
		expect(message.errorMessage).toBe(`400 ${text}`);
		expect(message.error?.kind).toBe("context_overflow");
	});
});

describe("openai-responses errors inside the stream", () => {
	const response = { id: "resp_x", object: "response", created_at: 1, model: "m", output: [], error: null };
	const textStart = [
		sse(
			{ type: "response.created", sequence_number: 0, response: { ...response, status: "in_progress" } },
			"response.created",
		),
		sse(
			{
				type: "response.output_item.added",
				sequence_number: 1,
				output_index: 0,
				item: { id: "msg_0", type: "message", role: "assistant", status: "in_progress", content: [] },
			},
			"response.output_item.added",
		),
		sse(
			{
				type: "response.output_text.delta",
				sequence_number: 2,
				item_id: "msg_0",
				output_index: 0,
				content_index: 0,
				delta: "Partial",
				logprobs: [],
			},
			"response.output_text.delta",
		),
	];

	async function replyWith(frames: string[]): Promise<AssistantMessage> {
		vi.spyOn(openaiResponsesWire, "frames").mockReturnValueOnce(frames);
		return streamModel(testModel(ctx.server, API), hello).result();
	}

	it("ends with the provider's message on response.failed, with the status its code implies", async () => {
		const failed = {
			...response,
			status: "failed",
			error: { code: "rate_limit_exceeded", message: "Rate limit reached for requests" },
		};
		const message = await replyWith([
			...textStart,
			sse({ type: "response.failed", sequence_number: 3, response: failed }, "response.failed"),
		]);
		expect(message.stopReason).toBe("error");
		expect(message.errorMessage).toBe("429 Rate limit reached for requests");
		expect(errorClass(message)).toBe("transient");
		expect(message.content).toEqual([{ type: "text", text: "Partial" }]);
	});

	it("ends with the provider's message on an error event", async () => {
		const error = {
			type: "error",
			sequence_number: 3,
			code: "server_error",
			message: "The server had an error",
			param: null,
		};
		const message = await replyWith([...textStart, sse(error, "error")]);
		expect(message.errorMessage).toBe("500 The server had an error");
		expect(errorClass(message)).toBe("transient");
	});

	it("ends with the provider's message on a nested error event", async () => {
		const error = {
			type: "error",
			sequence_number: 3,
			error: { type: "invalid_request_error", code: null, message: "Bad item" },
		};
		const message = await replyWith([...textStart, sse(error, "error")]);
		expect(message.errorMessage).toBe("400 Bad item");
		expect(errorClass(message)).toBe("permanent");
	});

	it("fails when the stream ends without a terminal event", async () => {
		const message = await replyWith(textStart);
		expect(message.stopReason).toBe("error");
		expect(message.errorMessage).toBe("Provider stream ended without response.completed");
		expect(errorClass(message)).toBe("transient");
	});
});
