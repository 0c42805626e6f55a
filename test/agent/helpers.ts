import { Type } from "typebox";
import { Agent, type AgentOptions } from "../../src/agent/agent.js";
import type { AgentMessage } from "../../src/agent/messages.js";
import { RetryPolicy } from "../../src/agent/retry.js";
import type { AgentEvent, AgentTool } from "../../src/agent/types.js";
import type { Model, UserMessage } from "../../src/llm/types.js";
import { type ScriptedStep, type ScriptedStream, scriptedStream } from "../support/scripted-stream.js";

export const MODEL: Model = {
	id: "scripted",
	name: "Scripted",
	api: "anthropic-messages",
	provider: "test",
	baseUrl: "http://127.0.0.1:1",
	reasoning: false,
	input: ["text", "image"],
	contextWindow: 100_000,
	maxTokens: 4096,
	cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 },
};

export function user(text: string): UserMessage {
	return { role: "user", content: text, timestamp: 1 };
}

export interface Harness {
	agent: Agent;
	stream: ScriptedStream;
	events: AgentEvent[];
	/** Event types in order, message events suffixed with the role, updates left out. */
	types(): string[];
	/** Resolves with the first event (already seen or future) that matches; rejects after 10 s. */
	waitFor(predicate: (event: AgentEvent) => boolean): Promise<AgentEvent>;
}

export function harness(
	steps: ScriptedStep[],
	options: Partial<AgentOptions["config"]> & { retry?: RetryPolicy; messages?: AgentMessage[] } = {},
): Harness {
	const stream = scriptedStream(...steps);
	const { retry, messages, ...config } = options;
	const agent = new Agent({
		config: { model: MODEL, thinkingLevel: "off", tools: [], streamFunction: stream, ...config },
		retry: retry ?? new RetryPolicy({ enabled: false }),
		messages,
	});
	const events: AgentEvent[] = [];
	const waiters = new Set<{ predicate: (event: AgentEvent) => boolean; resolve: (event: AgentEvent) => void }>();
	agent.subscribe((event) => {
		events.push(event);
		for (const waiter of waiters) {
			if (waiter.predicate(event)) {
				waiters.delete(waiter);
				waiter.resolve(event);
			}
		}
	});
	const waitFor = (predicate: (event: AgentEvent) => boolean) => {
		const seen = events.find(predicate);
		if (seen) return Promise.resolve(seen);
		return new Promise<AgentEvent>((resolve, reject) => {
			const waiter = {
				predicate,
				resolve: (event: AgentEvent) => {
					clearTimeout(timer);
					resolve(event);
				},
			};
			const timer = setTimeout(() => {
				waiters.delete(waiter);
				reject(new Error("the expected event did not arrive within 10 s"));
			}, 10_000);
			waiters.add(waiter);
		});
	};
	return {
		agent,
		stream,
		events,
		waitFor,
		types: () =>
			events
				.filter((event) => event.type !== "message_update")
				.map((event) =>
					event.type === "message_start" || event.type === "message_end"
						? `${event.type}:${event.message.role}`
						: event.type,
				),
	};
}

/** A tool that resolves when told to, records its calls, and honours abort. */
export function controllableTool(
	name: string,
): AgentTool & { release(id: string, text: string): void; started: string[] } {
	const waiting = new Map<string, (text: string) => void>();
	const started: string[] = [];
	return {
		name,
		description: `${name} test tool`,
		parameters: Type.Object({ value: Type.String() }),
		started,
		release(id, text) {
			waiting.get(id)?.(text);
		},
		execute(toolCallId, _args, signal) {
			started.push(toolCallId);
			return new Promise((resolve, reject) => {
				waiting.set(toolCallId, (text) => resolve({ content: [{ type: "text", text }] }));
				signal.addEventListener("abort", () => reject(new Error("aborted by test")), { once: true });
			});
		},
	};
}
