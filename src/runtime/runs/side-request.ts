import type { RetrySettings } from "../../agent/retry.js";
import type { StreamFunction } from "../../agent/types.js";
import { timerDelay } from "../../llm/timer-limit.js";
import type { AssistantMessage, Model, StreamOptions, ThinkingLevel } from "../../llm/types.js";
import { uuidv7 } from "../../session/ids.js";
import type { AgentSessionEvent } from "../facade/events.js";

/** What a one-off model request (compaction planning, branch summaries) needs from the session. */
export interface SideRequestHost {
	streamFunction: StreamFunction;
	requests: { options(model: Model): StreamOptions };
	models: { readonly thinkingLevel: ThinkingLevel };
	retry: { readonly settings: RetrySettings };
	events: { emit(event: AgentSessionEvent): unknown };
}

export type SideRequestSource =
	| { source: "compaction"; reason: "manual" | "threshold" | "overflow" }
	| { source: "branchSummary" };

export class SideRequestCancelled extends Error {
	constructor() {
		super("Request cancelled");
		this.name = "SideRequestCancelled";
	}
}

/**
 * One request outside the conversation: no tools, a fresh session id, nothing cached, the
 * session's reasoning level when the model reasons. Transient failures are retried with the
 * chat's retry settings, reported as summarization_retry_* events. Resolves with the final reply
 * (possibly an error reply); throws SideRequestCancelled when the signal fires during a delay.
 */
export async function sideRequest(
	host: SideRequestHost,
	model: Model,
	request: { systemPrompt: string; userText: string },
	signal: AbortSignal | undefined,
	origin: SideRequestSource,
): Promise<AssistantMessage> {
	const retry = host.retry.settings;
	let attempt = 0;
	for (;;) {
		const reply = await requestOnce(host, model, request, signal);
		const transient = reply.stopReason === "error" && reply.error?.retryable === true;
		if (!transient || !retry.enabled || attempt >= retry.maxRetries || signal?.aborted) {
			if (attempt > 0) host.events.emit({ type: "summarization_retry_finished" });
			return reply;
		}
		attempt++;
		const delayMs = timerDelay(retry.baseDelayMs * 2 ** (attempt - 1));
		host.events.emit({
			type: "summarization_retry_scheduled",
			attempt,
			maxAttempts: retry.maxRetries,
			delayMs,
			errorMessage: reply.errorMessage ?? "error",
		});
		await sleep(delayMs, signal);
		if (signal?.aborted) throw new SideRequestCancelled();
		host.events.emit({ type: "summarization_retry_attempt_start", ...origin });
	}
}

function requestOnce(
	host: SideRequestHost,
	model: Model,
	request: { systemPrompt: string; userText: string },
	signal: AbortSignal | undefined,
): Promise<AssistantMessage> {
	const level = host.models.thinkingLevel;
	const options: StreamOptions = {
		...host.requests.options(model),
		// A fresh id and no caching: the request shares nothing with the conversation.
		sessionId: uuidv7(),
		cacheRetention: "none",
		reasoning: model.reasoning && level !== "off" ? level : undefined,
	};
	if (signal) options.signal = signal;
	const context = {
		systemPrompt: request.systemPrompt,
		messages: [{ role: "user" as const, content: request.userText, timestamp: Date.now() }],
	};
	return host.streamFunction(model, context, options).result();
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
	return new Promise((resolve) => {
		if (signal?.aborted) return resolve();
		const timer = setTimeout(done, ms);
		function done() {
			clearTimeout(timer);
			signal?.removeEventListener("abort", done);
			resolve();
		}
		signal?.addEventListener("abort", done, { once: true });
	});
}
