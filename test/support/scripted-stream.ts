/**
 * An in-process scripted model for tests of the loop and the runtime: the same reply vocabulary as
 * the loopback server (ScriptedReply), driven through the real AssistantStreamBuilder, honouring
 * the abort signal. Records every call. An HTTP error reply fails the way the Anthropic provider
 * reports that response from the loopback server: the same text, classified by the provider's
 * own rules.
 */
import type { StreamFunction } from "../../src/agent/types.js";
import { retryAfterFromHeaders } from "../../src/llm/errors.js";
import { classifyAnthropicFailure } from "../../src/llm/providers/anthropic-errors.js";
import { AssistantStreamBuilder } from "../../src/llm/stream-builder.js";
import type { Context, Model, StreamOptions } from "../../src/llm/types.js";
import { defaultErrorText, type ScriptedReply, split } from "./llm-server.js";
import { anthropicWire } from "./wire/anthropic-messages.js";

export interface ScriptedCall {
	model: Model;
	context: Context;
	options: StreamOptions;
}

export type ScriptedStep = ScriptedReply | ((call: ScriptedCall) => ScriptedReply | Promise<ScriptedReply>);

export interface ScriptedStream extends StreamFunction {
	calls: ScriptedCall[];
	/** Steps not consumed yet. */
	remaining(): number;
	push(...steps: ScriptedStep[]): void;
	/**
	 * Answers the calls the steps do not cover (like the loopback server's onRequest); returning
	 * undefined, or no handler, answers "ok".
	 */
	onCall(handler: ((call: ScriptedCall) => ScriptedReply | undefined) | undefined): void;
}

export function scriptedStream(...steps: ScriptedStep[]): ScriptedStream {
	const queue = [...steps];
	const calls: ScriptedCall[] = [];
	let handler: ((call: ScriptedCall) => ScriptedReply | undefined) | undefined;
	let idCounter = 0;
	const stream = ((model: Model, context: Context, options: StreamOptions) => {
		const call: ScriptedCall = { model, context: structuredClone(context), options };
		calls.push(call);
		const out = new AssistantStreamBuilder(model);
		const step = queue.shift() ?? handler?.(call) ?? { blocks: [{ type: "text", text: "ok" }] };
		void play(out, call, step, () => `call_${++idCounter}`);
		return out.stream;
	}) as ScriptedStream;
	stream.calls = calls;
	stream.remaining = () => queue.length;
	stream.push = (...more) => queue.push(...more);
	stream.onCall = (next) => {
		handler = next;
	};
	return stream;
}

async function play(
	out: AssistantStreamBuilder,
	call: ScriptedCall,
	step: ScriptedStep,
	nextId: () => string,
): Promise<void> {
	const signal = call.options.signal;
	const aborted = () => signal?.aborted === true;
	const pause = (ms: number) =>
		new Promise<void>((resolve) => {
			if (!ms) return resolve();
			const timer = setTimeout(resolve, ms);
			signal?.addEventListener(
				"abort",
				() => {
					clearTimeout(timer);
					resolve();
				},
				{ once: true },
			);
		});
	if (aborted()) return out.fail("Request was aborted", true);
	const reply = typeof step === "function" ? await step(call) : step;
	if (reply.headersDelayMs) await pause(reply.headersDelayMs);
	if (aborted()) return out.fail("Request was aborted", true);
	if (reply.status && reply.status >= 400) return failed(out, reply, reply.status);
	out.start();
	const delay = reply.delayMs ?? 0;
	for (const block of reply.blocks ?? []) {
		if (block.type === "toolCall") {
			const index = out.startToolCall(block.id ?? nextId(), block.name);
			for (const piece of split(JSON.stringify(block.arguments), block.argumentChunks)) {
				await pause(delay);
				if (aborted()) return out.fail("Request was aborted", true);
				out.appendToolArguments(index, piece);
			}
			out.endBlock(index);
			continue;
		}
		const index = block.type === "text" ? out.startText() : out.startThinking();
		for (const piece of split(block.text, block.chunks)) {
			await pause(delay);
			if (aborted()) return out.fail("Request was aborted", true);
			if (block.type === "text") out.appendText(index, piece);
			else out.appendThinking(index, piece);
		}
		out.endBlock(index);
	}
	out.setUsage({
		input: reply.usage?.input ?? 10,
		output: reply.usage?.output ?? 5,
		cacheRead: reply.usage?.cacheRead ?? 0,
		cacheWrite: reply.usage?.cacheWrite ?? 0,
	});
	out.finish(reply.stopReason ?? (out.hasToolCalls() ? "toolUse" : "stop"));
}

/** Fails the stream as the Anthropic provider reports this HTTP error: `<status> <body JSON>`, classified. */
function failed(out: AssistantStreamBuilder, reply: ScriptedReply, status: number): void {
	const message = reply.errorMessage ?? defaultErrorText(status);
	const body = reply.errorBody ?? anthropicWire.errorBody(status, message);
	const error = classifyAnthropicFailure({
		status,
		type: errorType(body),
		message,
		retryAfterMs: retryAfterFromHeaders(reply.headers),
	});
	out.fail(`${status} ${JSON.stringify(body)}`, false, error);
}

function errorType(body: unknown): string | undefined {
	if (typeof body !== "object" || body === null || !("error" in body)) return undefined;
	const inner = body.error;
	if (typeof inner !== "object" || inner === null || !("type" in inner)) return undefined;
	return typeof inner.type === "string" ? inner.type : undefined;
}
