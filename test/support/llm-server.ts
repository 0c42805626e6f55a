/**
 * The loopback model server every test that needs a model uses. It speaks the real streaming wire
 * format of each protocol (see ./wire/), is scripted per test with protocol-neutral replies, and
 * records every request it receives.
 *
 *   const server = await LlmServer.start();
 *   server.enqueue({ blocks: [{ type: "text", text: "Hello" }] });
 *   // point a model at server.baseUrl("anthropic-messages") ...
 *   server.requests[0].body  // what the SDK sent
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { type WireApi, wireFor } from "./wire/index.js";

export type { WireApi } from "./wire/index.js";

export type ScriptBlock =
	| {
			type: "text";
			text: string /** Split into this many pieces, or these exact pieces. */;
			chunks?: number | string[];
	  }
	| { type: "thinking"; text: string; signature?: string; redacted?: boolean; chunks?: number | string[] }
	| {
			type: "toolCall";
			id?: string;
			name: string;
			arguments: Record<string, unknown>;
			/** The argument JSON split into this many pieces, or these exact pieces (must join to valid JSON). */
			argumentChunks?: number | string[];
			/**
			 * The argument JSON to stream instead of `arguments` serialised (streaming wire formats only):
			 * for values this process could not serialise itself, such as nesting 100,000 levels deep.
			 */
			rawArguments?: string;
	  };

export interface ScriptUsage {
	input?: number;
	output?: number;
	cacheRead?: number;
	cacheWrite?: number;
}

export interface ScriptedReply {
	blocks?: ScriptBlock[];
	/** Default: "toolUse" when a toolCall block is present, else "stop". */
	stopReason?: "stop" | "length" | "toolUse";
	usage?: ScriptUsage;
	/** Delay before each streamed frame after the first (ms). */
	delayMs?: number;
	/** Delay before the response headers are sent (ms). */
	headersDelayMs?: number;
	/** The response headers wait for this (a test holds the reply until it says so). */
	holdUntil?: Promise<void>;
	/** After this many frames the stream waits for `until` (a test holds a reply in its middle). */
	holdAfter?: { frames: number; until: Promise<void> };
	/** An HTTP error instead of a stream; the body is the provider's real error shape. */
	status?: number;
	/** The error text inside the provider's error body (default: a text matching the status). */
	errorMessage?: string;
	/** The exact error body to send with `status`, instead of the provider's shape around errorMessage. */
	errorBody?: unknown;
	/**
	 * The exact SSE body, frame by frame (each with its blank line), instead of the frames encoded
	 * from `blocks`: for fixtures of what a particular server sends. Faults and delays still apply.
	 */
	raw?: string[];
	/** Extra response headers (e.g. retry-after). */
	headers?: Record<string, string>;
	/**
	 * Faults: `reset` destroys the socket after `faultAfterFrames` frames; `stall` stops sending after
	 * that many frames and keeps the connection open; `malformed` sends a broken SSE frame there.
	 */
	fault?: "reset" | "stall" | "malformed";
	faultAfterFrames?: number;
}

export interface RecordedRequest {
	api: WireApi;
	method: string;
	path: string;
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
	/** True when the client closed the connection before the response ended. */
	clientDisconnected: boolean;
	/** Which connection it came on: 1 for the server's first, and so on. */
	connection: number;
}

export interface LlmServerOptions {
	/** Serve https with this key and certificate (PEM) instead of http. */
	tls?: { key: string; cert: string };
}

export type ReplyHandler = (request: RecordedRequest) => ScriptedReply | undefined;

/** A normalised reply the wire encoders consume. */
export interface NormalizedReply {
	blocks: Required<NormalizedBlock>[];
	stopReason: "stop" | "length" | "toolUse";
	usage: Required<ScriptUsage>;
}

export type NormalizedBlock =
	| { type: "text"; text: string; pieces: string[] }
	| { type: "thinking"; text: string; pieces: string[]; signature: string; redacted: boolean }
	| { type: "toolCall"; id: string; name: string; arguments: Record<string, unknown>; pieces: string[] };

const DEFAULT_REPLY: ScriptedReply = { blocks: [{ type: "text", text: "ok" }] };

export class LlmServer {
	readonly requests: RecordedRequest[] = [];
	private readonly queue: ScriptedReply[] = [];
	private handler: ReplyHandler | undefined;
	private readonly sockets = new Set<Socket>();
	/** The number of each connection, by the socket its requests arrive on. */
	private readonly numbers = new WeakMap<Socket, number>();
	private accepted = 0;
	private readonly connectionWaiters = new Set<() => void>();
	private toolCallCounter = 0;

	private constructor(
		private readonly server: Server,
		readonly port: number,
		private readonly scheme: "http" | "https",
	) {}

	static async start(options: LlmServerOptions = {}): Promise<LlmServer> {
		const server = options.tls ? createTlsServer(options.tls) : createServer();
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		const { port } = server.address() as AddressInfo;
		const instance = new LlmServer(server, port, options.tls ? "https" : "http");
		const numberIt = (socket: Socket) => {
			instance.accepted += 1;
			instance.numbers.set(socket, instance.accepted);
			for (const wake of [...instance.connectionWaiters]) wake();
		};
		server.on("connection", (socket: Socket) => {
			if (!options.tls) numberIt(socket);
			instance.sockets.add(socket);
			socket.on("close", () => instance.sockets.delete(socket));
		});
		// Over TLS, requests arrive on the TLS socket, once its handshake is done.
		if (options.tls) server.on("secureConnection", numberIt);
		server.on("request", (request, response) => {
			instance.handle(request, response).catch((error: unknown) => {
				if (!response.headersSent) response.writeHead(500, { "content-type": "text/plain" });
				response.end(String(error));
			});
		});
		return instance;
	}

	get origin(): string {
		return `${this.scheme}://127.0.0.1:${this.port}`;
	}

	/** How many connections the server has accepted (over TLS: completed the handshake of). */
	get connections(): number {
		return this.accepted;
	}

	/** Resolves once the server has accepted `count` connections (over TLS: completed their handshakes). */
	connected(count: number): Promise<void> {
		return new Promise((resolve) => {
			const wake = () => {
				if (this.accepted < count) return;
				this.connectionWaiters.delete(wake);
				resolve();
			};
			this.connectionWaiters.add(wake);
			wake();
		});
	}

	/** The baseUrl a model of this api uses to reach the server (what models.json would hold). */
	baseUrl(api: WireApi): string {
		return api === "openai-completions" || api === "openai-responses" ? `${this.origin}/v1` : this.origin;
	}

	/** Replies for the next requests, in order. When the queue is empty the handler (or "ok") answers. */
	enqueue(...replies: ScriptedReply[]): this {
		this.queue.push(...replies);
		return this;
	}

	/** Answers requests the queue does not cover. Returning undefined falls back to "ok". */
	onRequest(handler: ReplyHandler | undefined): this {
		this.handler = handler;
		return this;
	}

	get pending(): number {
		return this.queue.length;
	}

	reset(): void {
		this.queue.length = 0;
		this.requests.length = 0;
		this.handler = undefined;
	}

	/** Closes every open connection from the server's side; the server goes on listening. */
	dropConnections(): void {
		for (const socket of this.sockets) socket.destroy();
	}

	async close(): Promise<void> {
		for (const socket of this.sockets) socket.destroy();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}

	private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
		const chunks: Buffer[] = [];
		for await (const chunk of request) chunks.push(chunk as Buffer);
		const raw = Buffer.concat(chunks).toString("utf8");
		const url = new URL(request.url ?? "/", this.origin);
		const api = routeOf(request.method ?? "GET", url.pathname);
		if (!api) {
			response.writeHead(404, { "content-type": "application/json" });
			response.end(JSON.stringify({ error: { message: `no route for ${request.method} ${url.pathname}` } }));
			return;
		}
		let body: unknown = raw;
		try {
			body = raw ? JSON.parse(raw) : undefined;
		} catch {
			body = raw;
		}
		const recorded: RecordedRequest = {
			api,
			method: request.method ?? "GET",
			path: url.pathname + url.search,
			headers: request.headers,
			body,
			clientDisconnected: false,
			connection: this.numbers.get(request.socket) ?? 0,
		};
		this.requests.push(recorded);
		response.on("close", () => {
			if (!response.writableFinished) recorded.clientDisconnected = true;
		});
		const script = this.queue.shift() ?? this.handler?.(recorded) ?? DEFAULT_REPLY;
		await this.respond(api, script, recorded, response);
	}

	private async respond(
		api: WireApi,
		script: ScriptedReply,
		recorded: RecordedRequest,
		response: ServerResponse,
	): Promise<void> {
		const wire = wireFor(api);
		if (script.headersDelayMs) await sleep(script.headersDelayMs);
		if (script.holdUntil) await script.holdUntil;
		if (script.status && script.status >= 400) {
			const message = script.errorMessage ?? defaultErrorText(script.status);
			response.writeHead(script.status, {
				"content-type": "application/json",
				"x-should-retry": "false",
				...script.headers,
			});
			response.end(JSON.stringify(script.errorBody ?? wire.errorBody(script.status, message)));
			return;
		}
		const frames = script.raw ?? wire.frames(this.normalize(script), recorded.body);
		response.writeHead(200, {
			"content-type": "text/event-stream",
			"cache-control": "no-cache",
			connection: "keep-alive",
			"x-should-retry": "false",
			...script.headers,
		});
		const faultAt = script.fault ? (script.faultAfterFrames ?? Math.floor(frames.length / 2)) : -1;
		for (let index = 0; index < frames.length; index++) {
			if (response.destroyed) return;
			if (index === faultAt) {
				if (script.fault === "reset") {
					// What was written reaches the client first (Node holds a response's first writes
					// until the next tick): the stream is cut after those frames, not before its head.
					await new Promise((resolve) => setImmediate(resolve));
					response.socket?.destroy();
					return;
				}
				if (script.fault === "stall") return; // keep the connection open, send nothing more
				response.write("data: {not json\n\n");
				response.end();
				return;
			}
			if (index > 0 && script.delayMs) await sleep(script.delayMs);
			if (index === script.holdAfter?.frames) await script.holdAfter.until;
			if (response.destroyed) return;
			response.write(frames[index]);
		}
		response.end();
	}

	private normalize(script: ScriptedReply): NormalizedReply {
		const blocks = (script.blocks ?? []).map((block): Required<NormalizedBlock> => {
			if (block.type === "toolCall") {
				const json = block.rawArguments ?? JSON.stringify(block.arguments);
				return {
					type: "toolCall",
					id: block.id ?? `call_${++this.toolCallCounter}`,
					name: block.name,
					arguments: block.arguments,
					pieces: split(json, block.argumentChunks),
				};
			}
			if (block.type === "thinking") {
				return {
					type: "thinking",
					text: block.text,
					pieces: split(block.text, block.chunks),
					signature: block.signature ?? "sig-thinking",
					redacted: block.redacted ?? false,
				};
			}
			return { type: "text", text: block.text, pieces: split(block.text, block.chunks) };
		});
		const hasToolCall = blocks.some((block) => block.type === "toolCall");
		const outputGuess = Math.max(1, Math.ceil(blocks.reduce((sum, block) => sum + textLength(block), 0) / 4));
		return {
			blocks,
			stopReason: script.stopReason ?? (hasToolCall ? "toolUse" : "stop"),
			usage: {
				input: script.usage?.input ?? 10,
				output: script.usage?.output ?? outputGuess,
				cacheRead: script.usage?.cacheRead ?? 0,
				cacheWrite: script.usage?.cacheWrite ?? 0,
			},
		};
	}
}

function textLength(block: NormalizedBlock): number {
	return block.type === "toolCall" ? JSON.stringify(block.arguments).length : block.text.length;
}

function routeOf(method: string, path: string): WireApi | undefined {
	if (method !== "POST") return undefined;
	if (path.endsWith("/v1/messages")) return "anthropic-messages";
	if (path.endsWith("/chat/completions")) return "openai-completions";
	if (path.endsWith("/responses")) return "openai-responses";
	if (/:streamGenerateContent$|:generateContent$/.test(path)) return "google-generative-ai";
	return undefined;
}

/** Splits text into `count` roughly equal pieces, or returns the given pieces. */
export function split(text: string, chunks: number | string[] | undefined): string[] {
	if (Array.isArray(chunks)) return chunks;
	const count = Math.max(1, Math.min(chunks ?? 1, text.length || 1));
	if (count === 1) return [text];
	const size = Math.ceil(text.length / count);
	const pieces: string[] = [];
	for (let offset = 0; offset < text.length; offset += size) pieces.push(text.slice(offset, offset + size));
	return pieces;
}

/** The error text of a provider error body when a reply names none. */
export function defaultErrorText(status: number): string {
	if (status === 529) return "Overloaded";
	if (status === 429) return "Rate limit exceeded";
	if (status === 401) return "invalid x-api-key";
	if (status === 403) return "Permission denied";
	if (status >= 500) return "Internal server error";
	return "Invalid request";
}

function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Shorthand for a reply made of text only. */
export function textReply(text: string, extra: Omit<ScriptedReply, "blocks"> = {}): ScriptedReply {
	return { blocks: [{ type: "text", text }], ...extra };
}

/** Shorthand for a reply that calls one tool. */
export function toolReply(
	name: string,
	args: Record<string, unknown>,
	extra: Omit<ScriptedReply, "blocks"> = {},
): ScriptedReply {
	return { blocks: [{ type: "toolCall", name, arguments: args }], ...extra };
}
