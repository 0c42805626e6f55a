import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { streamModel } from "../../src/llm/registry.js";
import type { Context } from "../../src/llm/types.js";
import { LlmServer } from "../support/llm-server.js";
import { testModel } from "../support/models.js";
import { anthropicWire } from "../support/wire/anthropic-messages.js";
import { sse } from "../support/wire/index.js";
import { collectEvents, finalMessage, userMessage } from "./anthropic-test-helpers.js";
import { errorClass } from "./error-helpers.js";

let server: LlmServer;

beforeAll(async () => {
	server = await LlmServer.start();
});

afterAll(async () => {
	await server.close();
});

beforeEach(() => {
	server.reset();
});

afterEach(() => {
	vi.restoreAllMocks();
});

const hello: Context = { messages: [userMessage("Hello")] };

async function failedReply(status: number, errorMessage?: string) {
	server.enqueue({ status, ...(errorMessage ? { errorMessage } : {}) });
	const events = await collectEvents(streamModel(testModel(server, "anthropic-messages"), hello));
	expect(events.map((event) => event.type)).toEqual(["start", "error"]);
	return finalMessage(events);
}

describe("anthropic-messages HTTP errors", () => {
	it.each([
		[429, "rate_limit_error", "Rate limit exceeded"],
		[529, "overloaded_error", "Overloaded"],
		[500, "api_error", "Internal server error"],
	])("%i ends the reply with an error that starts with the status and is transient", async (status, type, text) => {
		const message = await failedReply(status);
		expect(message.stopReason).toBe("error");
		expect(message.errorMessage).toBe(`${status} {"type":"error","error":{"type":"${type}","message":"${text}"}}`);
		expect(errorClass(message)).toBe("transient");
	});

	it("401 is permanent", async () => {
		const message = await failedReply(401);
		expect(message.errorMessage).toBe(
			'401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}',
		);
		expect(errorClass(message)).toBe("permanent");
	});

	it("a 400 'prompt is too long' is a context overflow", async () => {
		const message = await failedReply(400, "prompt is too long: 250000 tokens > 200000 maximum");
		expect(message.errorMessage).toBe(
			'400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 250000 tokens > 200000 maximum"}}',
		);
		expect(message.error?.kind).toBe("context_overflow");
		expect(errorClass(message)).toBe("context_overflow");
	});

	it("the request is sent once: the SDK does not retry", async () => {
		await failedReply(529);
		expect(server.requests).toHaveLength(1);
	});
});

describe("anthropic-messages errors inside the stream", () => {
	/** Cuts the scripted stream after its first text delta and sends an `error` event instead. */
	function failMidStream(type: string, text: string): void {
		const realFrames = anthropicWire.frames.bind(anthropicWire);
		vi.spyOn(anthropicWire, "frames").mockImplementationOnce((reply, requestBody) => {
			const frames = realFrames(reply, requestBody);
			const firstDelta = frames.findIndex((frame) => frame.includes('"text_delta"'));
			return [...frames.slice(0, firstDelta + 1), sse({ type: "error", error: { type, message: text } }, "error")];
		});
	}

	it("an overloaded_error event fails the reply with a transient, status-prefixed message", async () => {
		failMidStream("overloaded_error", "Overloaded");
		server.enqueue({ blocks: [{ type: "text", text: "Hello world", chunks: ["Hello", " world"] }] });
		const events = await collectEvents(streamModel(testModel(server, "anthropic-messages"), hello));

		expect(events.map((event) => event.type)).toEqual(["start", "text_start", "text_delta", "text_end", "error"]);
		const message = finalMessage(events);
		expect(message.stopReason).toBe("error");
		expect(message.errorMessage).toBe("529 overloaded_error: Overloaded");
		expect(message.content).toEqual([{ type: "text", text: "Hello" }]);
		expect(errorClass(message)).toBe("transient");
	});

	it("an invalid_request_error event is permanent", async () => {
		failMidStream("invalid_request_error", "Bad block");
		server.enqueue({ blocks: [{ type: "text", text: "Hi" }] });
		const message = await streamModel(testModel(server, "anthropic-messages"), hello).result();
		expect(message.errorMessage).toBe("400 invalid_request_error: Bad block");
		expect(errorClass(message)).toBe("permanent");
	});

	it("a stream cut before its stop reason ends as a transient error", async () => {
		server.enqueue({ blocks: [{ type: "text", text: "Hello" }], fault: "reset", faultAfterFrames: 4 });
		const message = await streamModel(testModel(server, "anthropic-messages"), hello).result();
		expect(message.stopReason).toBe("error");
		expect(message.errorMessage).toBe("fetch failed (ECONNRESET)");
		expect(errorClass(message)).toBe("transient");
	});
});
