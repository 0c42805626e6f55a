import { timerDelay } from "../llm/timer-limit.js";
import type { AssistantMessage } from "../llm/types.js";

export interface RetrySettings {
	enabled: boolean;
	/** Retries after the first failure (3 → up to 4 requests). */
	maxRetries: number;
	/** Delay before retry n is baseDelayMs * 2^(n-1): 2 s, 4 s, 8 s by default. */
	baseDelayMs: number;
}

/** The longest server-requested (retry-after) delay honoured before a retry. */
export const MAX_SERVER_DELAY_MS = 60_000;

export const DEFAULT_RETRY_SETTINGS: RetrySettings = { enabled: true, maxRetries: 3, baseDelayMs: 2000 };

export type WaitOutcome = "elapsed" | "cancelled" | "aborted";

/**
 * Automatic retry of transient provider failures (rate limits, overload, 5xx, network). Holds the
 * settings and the one delay in progress, so `abortRetry()` can cancel it from outside. Context
 * overflow and permanent errors are never retried here.
 */
export class RetryPolicy {
	readonly settings: RetrySettings;
	private pending: { timer: NodeJS.Timeout; finish: (outcome: WaitOutcome) => void } | undefined;

	constructor(settings: Partial<RetrySettings> = {}) {
		this.settings = { ...DEFAULT_RETRY_SETTINGS, ...settings };
	}

	get isWaiting(): boolean {
		return this.pending !== undefined;
	}

	/**
	 * Whether a failed reply is worth another request (ignores the attempt count): what its
	 * protocol module said in `error.retryable`. A failure without that data is not retried.
	 */
	isRetryable(message: AssistantMessage): boolean {
		if (!this.settings.enabled || message.stopReason !== "error") return false;
		return message.error?.retryable === true;
	}

	/**
	 * The delay before retry number `attempt` (1-based): exponential backoff, or longer when the
	 * server asked for it (retry-after), but never more than MAX_SERVER_DELAY_MS, so a
	 * retry-after of hours cannot park the agent. A backoff past the longest timer is clamped to it.
	 */
	delayFor(attempt: number, failed?: AssistantMessage): number {
		const backoff = this.settings.baseDelayMs * 2 ** (attempt - 1);
		const requested = failed?.error?.retryAfterMs;
		const delay = requested === undefined ? backoff : Math.max(backoff, Math.min(requested, MAX_SERVER_DELAY_MS));
		return timerDelay(delay);
	}

	/** Waits `delayMs`; resolves early with "cancelled" (abortRetry) or "aborted" (the signal). */
	wait(delayMs: number, signal: AbortSignal): Promise<WaitOutcome> {
		this.cancelPending("cancelled");
		if (signal.aborted) return Promise.resolve("aborted");
		return new Promise((resolve) => {
			const onAbort = () => finish("aborted");
			const finish = (outcome: WaitOutcome) => {
				if (!this.pending || this.pending.finish !== finish) return;
				clearTimeout(this.pending.timer);
				this.pending = undefined;
				signal.removeEventListener("abort", onAbort);
				resolve(outcome);
			};
			const timer = setTimeout(() => finish("elapsed"), timerDelay(delayMs));
			this.pending = { timer, finish };
			signal.addEventListener("abort", onAbort, { once: true });
		});
	}

	/** Cancels the delay in progress. Returns true when there was one. */
	abortRetry(): boolean {
		return this.cancelPending("cancelled");
	}

	private cancelPending(outcome: WaitOutcome): boolean {
		const pending = this.pending;
		if (!pending) return false;
		pending.finish(outcome);
		return true;
	}
}
