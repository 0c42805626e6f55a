import { describe, expect, it } from "vitest";
import { AssistantMessageEventStream } from "../../src/llm/event-stream.js";
import { AssistantStreamBuilder } from "../../src/llm/stream-builder.js";
import type { AssistantMessage, AssistantMessageEvent, Model } from "../../src/llm/types.js";

const model: Model = {
	id: "m",
	name: "M",
	api: "openai-completions",
	provider: "p",
	baseUrl: "http://localhost:1",
	reasoning: false,
	input: ["text"],
	contextWindow: 100_000,
	maxTokens: 1000,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
};

async function collect(stream: AssistantMessageEventStream): Promise<AssistantMessageEvent[]> {
	const events: AssistantMessageEvent[] = [];
	for await (const event of stream) events.push(event);
	return events;
}

describe("AssistantMessageEventStream", () => {
	const final = (): AssistantMessage => new AssistantStreamBuilder(model).message;

	it("delivers events pushed before and while a consumer waits", async () => {
		const stream = new AssistantMessageEventStream();
		stream.push({ type: "start" });
		const iterator = stream[Symbol.asyncIterator]();
		expect(await iterator.next()).toEqual({ value: { type: "start" }, done: false });
		const waiting = iterator.next();
		stream.push({ type: "text_start", contentIndex: 0 });
		expect(await waiting).toEqual({ value: { type: "text_start", contentIndex: 0 }, done: false });
		const message = final();
		stream.push({ type: "done", reason: "stop", message });
		expect(await iterator.next()).toEqual({ value: { type: "done", reason: "stop", message }, done: false });
		expect(await iterator.next()).toEqual({ value: undefined, done: true });
	});

	it("resolves result() for waiters registered before and after the end, and ignores later pushes", async () => {
		const stream = new AssistantMessageEventStream();
		const early = stream.result();
		expect(stream.isEnded).toBe(false);
		const message = final();
		stream.push({ type: "error", reason: "error", message });
		stream.push({ type: "start" });
		stream.push({ type: "done", reason: "stop", message: final() });
		expect(stream.isEnded).toBe(true);
		expect(await early).toBe(message);
		expect(await stream.result()).toBe(message);
		expect(await collect(stream)).toEqual([{ type: "error", reason: "error", message }]);
	});

	it("lets a consumer stop early without affecting the producer", async () => {
		const stream = new AssistantMessageEventStream();
		stream.push({ type: "start" });
		for await (const event of stream) {
			expect(event.type).toBe("start");
			break;
		}
		const message = final();
		stream.push({ type: "done", reason: "stop", message });
		expect(await stream.result()).toBe(message);
	});
});
