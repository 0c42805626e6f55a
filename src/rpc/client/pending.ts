import { timerDelay } from "../../llm/timer-limit.js";
import type { RpcResponse } from "./types.js";

/** A timeout in milliseconds, or `false` for none. */
export type Timeout = number | false;

export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Commands that take as long as their work (a run's acceptance behind a long command, a
 * compaction, a shell command, a session replacement that aborts a run first, an abort that waits
 * for the run to end): no default timeout. The names of commands the lead is adding are listed
 * ahead, so they are right the day they arrive.
 */
export const UNTIMED_COMMANDS: ReadonlySet<string> = new Set([
	"prompt",
	"compact",
	"bash",
	"user_bash",
	"new_session",
	"switch_session",
	"import_session",
	"navigate_tree",
	"fork",
	"clone",
	"abort",
	"abort_bash",
	"abort_compaction",
	"abort_retry",
]);

export interface TimeoutPolicy {
	/** For commands not in UNTIMED_COMMANDS (default 30 s). */
	defaultMs?: Timeout;
	/** Per command type; wins over the defaults. */
	commands?: Partial<Record<string, Timeout>>;
}

/** The timeout of one request: the call's own, else the client's per-command one, else the defaults. */
export function timeoutFor(command: string, policy: TimeoutPolicy, override: Timeout | undefined): Timeout {
	if (override !== undefined) return override;
	const configured = policy.commands?.[command];
	if (configured !== undefined) return configured;
	if (UNTIMED_COMMANDS.has(command)) return false;
	return policy.defaultMs ?? DEFAULT_TIMEOUT_MS;
}

interface Waiting {
	resolve(response: RpcResponse): void;
	reject(error: Error): void;
	timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * Requests waiting for their response, by id. Each settles exactly once: by its response, its
 * timeout, or a failure of the process. A response that arrives after its request gave up (a
 * timeout) finds no entry and is dropped.
 */
export class PendingRequests {
	private counter = 0;
	private readonly waiting = new Map<string, Waiting>();

	constructor(private readonly timeoutError: (command: string, timeoutMs: number) => Error) {}

	nextId(): string {
		this.counter += 1;
		return `req-${this.counter}`;
	}

	get size(): number {
		return this.waiting.size;
	}

	/** Whether the request with this id still waits for its response. */
	has(id: string): boolean {
		return this.waiting.has(id);
	}

	/** Waits for the response carrying `id`. */
	add(id: string, command: string, timeout: Timeout): Promise<RpcResponse> {
		return new Promise((resolve, reject) => {
			const timer =
				timeout === false
					? undefined
					: setTimeout(() => this.fail(id, this.timeoutError(command, timeout)), timerDelay(timeout));
			this.waiting.set(id, { resolve, reject, timer });
		});
	}

	/** Hands a response to its request; false when no request waits for that id. */
	settle(response: RpcResponse): boolean {
		const id = response.id === undefined ? undefined : String(response.id);
		const entry = id === undefined ? undefined : this.take(id);
		if (!entry) return false;
		entry.resolve(response);
		return true;
	}

	fail(id: string, error: Error): void {
		this.take(id)?.reject(error);
	}

	failAll(error: Error): void {
		for (const id of [...this.waiting.keys()]) this.fail(id, error);
	}

	private take(id: string): Waiting | undefined {
		const entry = this.waiting.get(id);
		if (!entry) return undefined;
		this.waiting.delete(id);
		if (entry.timer) clearTimeout(entry.timer);
		return entry;
	}
}
