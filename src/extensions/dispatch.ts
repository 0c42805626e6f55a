import type { ExtensionError } from "./host.js";
import type { ExtensionRecord, StoredHandler } from "./registry.js";

export type Invocation = { ok: true; value: unknown } | { ok: false; error: string };

export interface InvokeOptions {
	/** The run's abort signal (tool hooks, `context`). */
	signal?: AbortSignal;
	/** What `ctx.getSystemPrompt()` answers during this call. */
	systemPrompt?: () => string;
}

/**
 * How hooks reach the extensions' handlers (the runner implements it). Handlers run one at a time,
 * in load order, then registration order.
 */
export interface Dispatch {
	/** A snapshot, so handlers registered while dispatching wait for the next event. */
	handlers(event: string): [ExtensionRecord, StoredHandler][];
	/** Runs one handler; a throw is reported as an extension error and returned as `{ok: false}`. */
	invoke(
		record: ExtensionRecord,
		handler: StoredHandler,
		event: { type: string },
		options?: InvokeOptions,
	): Promise<Invocation>;
	/** Reads a handler's result; a malformed one (the reader throws) is reported and ignored. */
	read<T>(record: ExtensionRecord, event: string, reader: () => T): T | undefined;
	report(error: ExtensionError): void;
}
