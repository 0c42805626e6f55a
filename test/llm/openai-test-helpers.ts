import { afterAll, beforeAll, beforeEach } from "vitest";
import type { AssistantMessageEventStream } from "../../src/llm/event-stream.js";
import type { AssistantMessage, AssistantMessageEvent, Context, Message, Model } from "../../src/llm/types.js";
import { LlmServer } from "../support/llm-server.js";

/** Starts one loopback server for the file and resets it before each test. */
export function useLlmServer(): { readonly server: LlmServer } {
	let server: LlmServer | undefined;
	beforeAll(async () => {
		server = await LlmServer.start();
	});
	afterAll(async () => {
		await server?.close();
	});
	beforeEach(() => {
		server?.reset();
	});
	return {
		get server(): LlmServer {
			if (!server) throw new Error("the loopback server is not running");
			return server;
		},
	};
}

/** Reads a stream to its end. */
export async function collect(stream: AssistantMessageEventStream): Promise<AssistantMessageEvent[]> {
	const events: AssistantMessageEvent[] = [];
	for await (const event of stream) events.push(event);
	return events;
}

/** The JSON body of the server's request number `index`. */
export function requestBody(server: LlmServer, index = 0): Record<string, unknown> {
	const body = server.requests[index]?.body;
	if (typeof body !== "object" || body === null) throw new Error(`no JSON body for request #${index}`);
	return body as Record<string, unknown>;
}

export const hi: Message = { role: "user", content: "Hi", timestamp: 1 };
export const hello: Context = { messages: [hi] };

/** A finished assistant message of `model` (so that its signatures and ids count as its own). */
export function assistantWith(content: AssistantMessage["content"], model: Model): AssistantMessage {
	return {
		role: "assistant",
		content,
		api: model.api,
		provider: model.provider,
		model: model.id,
		usage: {
			input: 0,
			output: 0,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: 0,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		},
		stopReason: "toolUse",
		timestamp: 2,
	};
}
