import { httpModule, httpsModule } from "../platform/lazy-builtins.js";
import { describeError, errorFromThrown, providerError } from "./errors.js";
import type { AssistantMessageEventStream } from "./event-stream.js";
import { AssistantStreamBuilder } from "./stream-builder.js";
import { timerDelay } from "./timer-limit.js";
import type { Context, Model, StreamOptions } from "./types.js";

/**
 * One wire protocol. `streamReply` sends the request and drives `out` until it calls
 * `out.finish(...)`. It may throw at any point: the registry turns the throw into the stream's one
 * terminal `error` event. It must pass `options.signal` to its HTTP client.
 */
export interface ProviderModule {
	streamReply(model: Model, context: Context, options: StreamOptions, out: AssistantStreamBuilder): Promise<void>;
}

export type ProviderLoader = () => Promise<ProviderModule>;

const loaders = new Map<string, ProviderLoader>([
	["anthropic-messages", () => import("./providers/anthropic-messages.js")],
	["openai-completions", () => import("./providers/openai-completions.js")],
	["openai-responses", () => import("./providers/openai-responses.js")],
	["google-generative-ai", () => import("./providers/google-generative-ai.js")],
]);

const loaded = new Map<string, Promise<ProviderModule>>();

/** Adds or replaces the module for an api (used by embedders with their own protocols). */
export function registerProvider(api: string, loader: ProviderLoader): void {
	loaders.set(api, loader);
	loaded.delete(api);
}

function loadProvider(api: string): Promise<ProviderModule> {
	let module = loaded.get(api);
	if (!module) {
		const loader = loaders.get(api);
		if (!loader) return Promise.reject(new Error(`No provider for api "${api}"`));
		module = loader();
		module.catch(() => loaded.delete(api));
		loaded.set(api, module);
	}
	return module;
}

/**
 * Loads the module for an api (and the SDK it imports) ahead of a first request; resolves once it
 * is loaded, rejects when it cannot be (the first request then reports the failure itself).
 */
export async function preloadProvider(api: string): Promise<void> {
	await loadProvider(api);
}

/**
 * Loads what a first request builds besides the provider's module: the web `Headers` and
 * `Response` every SDK makes (Node loads their implementation on first use) and the HTTP client
 * (node:http or node:https for `baseUrl`). Nothing is sent.
 */
export function preloadHttpClient(baseUrl: string): void {
	new Headers();
	new Response(null);
	if (baseUrl.startsWith("https:")) httpsModule();
	else httpModule();
}

/** The built-in apis whose SDK requests through providerFetch, and so through its connection pool. */
const POOLED_APIS: ReadonlySet<string> = new Set(["anthropic-messages", "openai-completions", "openai-responses"]);

/** Whether `preconnectProvider` can open a connection the model's first request would go out on. */
export function canPreconnect(model: Pick<Model, "api" | "baseUrl">): boolean {
	if (!POOLED_APIS.has(model.api) || !URL.canParse(model.baseUrl)) return false;
	const { protocol, username, password } = new URL(model.baseUrl);
	// A URL with credentials in it goes to the global fetch (http-transport.ts).
	return (protocol === "http:" || protocol === "https:") && username === "" && password === "";
}

/**
 * Opens the connection the model's first request goes out on, ahead of it (connection-pool.ts):
 * TCP, and TLS with its CA store for https. Nothing is sent. Rejects when it cannot connect.
 */
export async function preconnectProvider(model: Pick<Model, "api" | "baseUrl">): Promise<void> {
	if (!canPreconnect(model)) return;
	const { preconnect } = await import("./connection-pool.js");
	await preconnect(model.baseUrl);
}

export const ABORTED_MESSAGE = "Request was aborted";

/**
 * Streams one assistant reply. Returns at once; every failure after this point (unknown api, SDK
 * load failure, HTTP error, network error, abort, idle timeout) ends the stream with exactly one
 * `error` event. Nothing throws.
 */
export function streamModel(model: Model, context: Context, options: StreamOptions = {}): AssistantMessageEventStream {
	const out = new AssistantStreamBuilder(model);
	void run(model, context, options, out);
	return out.stream;
}

async function run(model: Model, context: Context, options: StreamOptions, out: AssistantStreamBuilder): Promise<void> {
	const callerSignal = options.signal;
	const controller = new AbortController();
	let idleMessage: string | undefined;
	const onCallerAbort = () => controller.abort(callerSignal?.reason);
	if (callerSignal?.aborted) controller.abort(callerSignal.reason);
	else callerSignal?.addEventListener("abort", onCallerAbort, { once: true });

	let idleTimer: NodeJS.Timeout | undefined;
	const idleTimeoutMs = options.idleTimeoutMs;
	const armIdleTimer = () => {
		if (!idleTimeoutMs || idleTimeoutMs <= 0 || out.isFinished) return;
		clearTimeout(idleTimer);
		idleTimer = setTimeout(() => {
			idleMessage = `Provider stream idle for ${idleTimeoutMs} ms (idle timeout)`;
			controller.abort(new Error(idleMessage));
		}, timerDelay(idleTimeoutMs));
		idleTimer.unref?.();
	};
	let unsubscribe: (() => void) | undefined;

	try {
		if (controller.signal.aborted) throw new Error(ABORTED_MESSAGE);
		// Loading the SDK is not provider silence: the idle timer starts once the request can go out.
		const provider = await untilAborted(loadProvider(model.api), controller.signal);
		unsubscribe = idleTimeoutMs ? watchProgress(out, armIdleTimer) : undefined;
		armIdleTimer();
		await provider.streamReply(model, context, { ...options, signal: controller.signal }, out);
		if (!out.isFinished) {
			if (controller.signal.aborted) throw new Error(ABORTED_MESSAGE);
			out.fail("Provider stream ended without a final message", false, providerError("network"));
		}
	} catch (error) {
		if (idleMessage) out.fail(idleMessage, false, providerError("timeout"));
		else if (callerSignal?.aborted) out.fail(ABORTED_MESSAGE, true);
		else out.fail(describeError(error), false, errorFromThrown(error));
	} finally {
		clearTimeout(idleTimer);
		unsubscribe?.();
		callerSignal?.removeEventListener("abort", onCallerAbort);
	}
}

/** Resolves with `work`, or rejects as aborted as soon as `signal` fires (the work itself carries on). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
	if (signal.aborted) return Promise.reject(new Error(ABORTED_MESSAGE));
	return new Promise<T>((resolve, reject) => {
		const onAbort = () => reject(new Error(ABORTED_MESSAGE));
		signal.addEventListener("abort", onAbort, { once: true });
		work.then(
			(value) => {
				signal.removeEventListener("abort", onAbort);
				resolve(value);
			},
			(error: unknown) => {
				signal.removeEventListener("abort", onAbort);
				reject(error);
			},
		);
	});
}

/** Calls `onProgress` whenever the builder emits an event. */
function watchProgress(out: AssistantStreamBuilder, onProgress: () => void): () => void {
	const stream = out.stream;
	const push = stream.push.bind(stream);
	stream.push = (event) => {
		push(event);
		onProgress();
	};
	return () => {
		stream.push = push;
	};
}
