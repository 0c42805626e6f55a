import { request as httpRequest, type IncomingMessage, type RequestOptions } from "node:http";
import type { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { httpsModule } from "../platform/lazy-builtins.js";
import { agentFor, dropIdleConnections, wasOpenBefore } from "./connection-pool.js";

/**
 * A `fetch` for the provider SDKs over node:http(s): one keep-alive connection pool per scheme, the
 * request body written in one piece, the response body handed over as it arrives. It does what
 * the SDKs ask of fetch (a string body, headers, an abort signal, redirects, a streamed body) at a
 * fraction of the global fetch's cost per request (see docs/providers.md, "HTTP"). Anything else
 * (a Request object, a streamed or form body, another scheme, a redirect mode other than
 * "follow", a URL that does not parse) goes to the global fetch.
 */
export const providerFetch: typeof fetch = async (input, init) => {
	const url = typeof input === "string" ? input : input instanceof URL ? input.href : undefined;
	const body = init?.body;
	const plain = body === undefined || body === null || typeof body === "string";
	if (url === undefined || !plain || (init?.redirect !== undefined && init.redirect !== "follow")) {
		return fetch(input, init);
	}
	// A URL that does not parse gets fetch's own rejection.
	const target = URL.canParse(url) ? new URL(url) : undefined;
	if (!target) return fetch(input, init);
	// fetch's own answer to another scheme or to credentials in the URL (it refuses them) stays as it is.
	if ((target.protocol !== "http:" && target.protocol !== "https:") || target.username || target.password) {
		return fetch(input, init);
	}
	return send(target, {
		method: (init?.method ?? "GET").toUpperCase(),
		headers: headerList(init?.headers),
		body: body ?? undefined,
		signal: init?.signal,
	});
};

/** What one request sends (a redirect may change the method, drop the body and some headers). */
interface Outgoing {
	method: string;
	headers: [string, string][];
	body: string | undefined;
	signal: AbortSignal | null | undefined;
}

/** Redirects followed before giving up, as fetch does. */
const MAX_REDIRECTS = 20;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

function headerList(headers: HeadersInit | undefined): [string, string][] {
	if (headers === undefined) return [];
	if (headers instanceof Headers) {
		const list: [string, string][] = [];
		headers.forEach((value, name) => {
			list.push([name, value]);
		});
		return list;
	}
	if (Array.isArray(headers)) return headers.map(([name, value]) => [String(name), String(value)]);
	return Object.entries(headers).map(([name, value]) => [name, String(value)]);
}

/** What fetch rejects with when the request cannot be made: the SDKs read it as a connection error. */
function fetchFailed(cause: unknown): TypeError {
	return new TypeError("fetch failed", { cause });
}

function abortReason(signal: AbortSignal): unknown {
	return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

async function send(target: URL, first: Outgoing): Promise<Response> {
	let url = target;
	let outgoing = first;
	for (let redirects = 0; ; redirects++) {
		const message = await exchange(url, outgoing);
		const location = message.headers.location;
		if (!REDIRECTS.has(message.statusCode ?? 0) || typeof location !== "string") {
			return toResponse(message, outgoing.signal);
		}
		message.resume();
		if (redirects >= MAX_REDIRECTS) throw fetchFailed(new Error("redirect count exceeded"));
		const next = new URL(location, url);
		if (next.protocol !== "http:" && next.protocol !== "https:") {
			throw fetchFailed(new Error("URL scheme must be a HTTP(S) scheme"));
		}
		// As fetch does: 303, and 301/302 after a POST, go on as a GET without the body.
		const status = message.statusCode ?? 0;
		const method = outgoing.method;
		if (status === 303 ? method !== "HEAD" : (status === 301 || status === 302) && method === "POST") {
			const headers = outgoing.headers.filter(([name]) => !/^content-/i.test(name));
			outgoing = { ...outgoing, method: "GET", body: undefined, headers };
		}
		// Credentials are not carried to another origin.
		if (next.origin !== url.origin) {
			const headers = outgoing.headers.filter(
				([name]) => !/^(authorization|x-api-key|x-goog-api-key|cookie)$/i.test(name),
			);
			outgoing = { ...outgoing, headers };
		}
		url = next;
	}
}

/**
 * One request; resolves with the response head. A request that fails on a connection that was open
 * before it (opened ahead, or kept alive from an earlier request) before a single byte of the
 * response arrived is sent once more, on a new connection: such a connection may have died
 * unnoticed (a sleep, a NAT's timeout, a server closing it as the request went out), and a server
 * that sent nothing back has given no answer to lose. Any other failure is not sent again
 * (retrying is the agent's decision).
 */
async function exchange(target: URL, outgoing: Outgoing): Promise<IncomingMessage> {
	try {
		return await exchangeOnce(target, outgoing);
	} catch (error) {
		if (!(error instanceof StaleConnection) || outgoing.signal?.aborted) throw unwrap(error);
		dropIdleConnections(target);
		return exchangeOnce(target, outgoing).catch((again: unknown) => {
			throw unwrap(again);
		});
	}
}

/** A failure before any response byte, on a connection that was open before the request. */
class StaleConnection extends Error {
	constructor(readonly failure: TypeError) {
		super(failure.message, { cause: failure });
	}
}

function unwrap(error: unknown): unknown {
	return error instanceof StaleConnection ? error.failure : error;
}

function exchangeOnce(target: URL, { method, headers, body, signal }: Outgoing): Promise<IncomingMessage> {
	return new Promise((resolve, reject) => {
		if (signal?.aborted) {
			reject(abortReason(signal));
			return;
		}
		const outgoing: Record<string, string | string[]> = {};
		for (const [name, value] of headers) {
			const key = name.toLowerCase();
			const known = outgoing[key];
			outgoing[key] = known === undefined ? value : key === "cookie" ? `${known}; ${value}` : `${known}, ${value}`;
		}
		// Encoded once: its length is the header, and the socket writes these bytes as they are.
		const bytes = body === undefined ? undefined : Buffer.from(body, "utf8");
		if (bytes !== undefined) outgoing["content-length"] = String(bytes.length);
		const options: RequestOptions = { method, headers: outgoing, agent: agentFor(target) };
		const request = (target.protocol === "https:" ? httpsModule().request : httpRequest)(target, options);
		const onAbort = () => request.destroy();
		signal?.addEventListener("abort", onAbort, { once: true });
		const settle = () => signal?.removeEventListener("abort", onAbort);
		request.on("response", (message) => {
			settle();
			resolve(message);
		});
		request.on("error", (error) => {
			settle();
			if (signal?.aborted) reject(abortReason(signal));
			else if (wasOpenBefore(request.socket, request.reusedSocket)) reject(new StaleConnection(fetchFailed(error)));
			else reject(fetchFailed(error));
		});
		request.end(bytes);
	});
}

function decoded(message: IncomingMessage): Readable {
	const encoding = String(message.headers["content-encoding"] ?? "")
		.trim()
		.toLowerCase();
	const decoder =
		encoding === "gzip" || encoding === "x-gzip"
			? createGunzip()
			: encoding === "deflate"
				? createInflate()
				: encoding === "br"
					? createBrotliDecompress()
					: undefined;
	if (!decoder) return message;
	message.on("error", (error) => decoder.destroy(error));
	return message.pipe(decoder);
}

function toResponse(message: IncomingMessage, signal: AbortSignal | null | undefined): Response {
	const status = message.statusCode ?? 0;
	const headers = new Headers();
	const raw = message.rawHeaders;
	for (let index = 0; index + 1 < raw.length; index += 2) headers.append(raw[index] ?? "", raw[index + 1] ?? "");
	const init = { status, statusText: message.statusMessage ?? "", headers };
	if (NULL_BODY.has(status) || status < 200 || status > 599) {
		message.resume();
		return new Response(null, status < 200 || status > 599 ? { ...init, status: 502 } : init);
	}
	return new Response(bodyStream(message, signal), init);
}

/** The response body as a web stream that reads from the socket only as fast as it is consumed. */
function bodyStream(message: IncomingMessage, signal: AbortSignal | null | undefined): ReadableStream<Uint8Array> {
	const source = decoded(message);
	let done = false;
	const onAbort = () => message.destroy();
	return new ReadableStream<Uint8Array>(
		{
			start(controller) {
				const finish = (error?: unknown) => {
					if (done) return;
					done = true;
					signal?.removeEventListener("abort", onAbort);
					if (error === undefined) controller.close();
					else controller.error(error);
				};
				signal?.addEventListener("abort", onAbort, { once: true });
				source.on("data", (chunk: Buffer) => {
					if (done) return;
					controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
					if ((controller.desiredSize ?? 0) <= 0) source.pause();
				});
				source.on("end", () => finish());
				source.on("error", (error) => finish(signal?.aborted ? abortReason(signal) : fetchFailed(error)));
				message.on("close", () => {
					if (signal?.aborted) finish(abortReason(signal));
					else if (!message.complete) finish(fetchFailed(new Error("terminated: the connection closed mid-body")));
				});
			},
			pull() {
				source.resume();
			},
			cancel() {
				done = true;
				signal?.removeEventListener("abort", onAbort);
				message.destroy();
			},
		},
		{ highWaterMark: 16 },
	);
}
