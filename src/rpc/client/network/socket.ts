import type { ClientOptions, RawData, WebSocket } from "ws";
import { RpcConnectionError } from "../errors.js";

type WebSocketClass = typeof import("ws").WebSocket;

let loading: Promise<WebSocketClass> | undefined;

/** The `ws` package, loaded on the first connection (a client of a process never loads it). */
function loadWebSocket(): Promise<WebSocketClass> {
	loading ??= import("ws").then((module) => module.WebSocket);
	return loading;
}

/** What one connection reports; each is called for the socket it was opened with. */
export interface SocketHandlers {
	onOpen(): void;
	onText(text: string): void;
	onBinary(): void;
	/** Once, when the socket is closed, with what closed it (`refused`: the server answered with an HTTP status). */
	onClose(code: number, reason: string, error: Error | undefined): void;
}

/** How long the opening handshake may take before the attempt counts as failed. */
const HANDSHAKE_TIMEOUT_MS = 10_000;

/**
 * The largest frame taken from the server. A `resync` carries the whole session's messages; a
 * frame over the limit would close the connection, and the reconnect would get the same resync.
 */
const MAX_FRAME_BYTES = 512 * 1024 * 1024;

/** Statuses that end the client: trying again with the same token cannot succeed. */
export const FATAL_STATUSES: ReadonlySet<number> = new Set([401, 403]);

/** Checks a client's URL: ws:// or wss://. */
export function checkUrl(url: string): void {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch (error) {
		throw new RpcConnectionError(`Invalid url "${url}": expected ws://host:port/ws or wss://host:port/ws`, undefined, {
			cause: error,
		});
	}
	if (parsed.protocol !== "ws:" && parsed.protocol !== "wss:") {
		throw new RpcConnectionError(`Invalid url "${url}": the protocol must be ws: or wss:, not ${parsed.protocol}`);
	}
}

function refusal(url: string, status: number, text: string): RpcConnectionError {
	const detail = `HTTP ${status}${text ? ` ${text}` : ""}`;
	if (status === 401) return new RpcConnectionError(`The server at ${url} refused the token (${detail})`, status);
	if (status === 403) return new RpcConnectionError(`The server at ${url} refused the connection (${detail})`, status);
	return new RpcConnectionError(`The server at ${url} answered ${detail} instead of opening the WebSocket`, status);
}

function textOf(data: RawData): string {
	if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
	if (Buffer.isBuffer(data)) return data.toString("utf8");
	return Buffer.from(new Uint8Array(data)).toString("utf8");
}

/**
 * Opens one WebSocket to `url` with the token. Every outcome, including a refusal (HTTP 401, 403,
 * 429...) or a failure to load `ws`, ends in exactly one `onClose`.
 */
export async function openSocket(
	url: string,
	token: string,
	tls: Pick<ClientOptions, "ca">,
	handlers: SocketHandlers,
): Promise<WebSocket | undefined> {
	let WebSocketClass: WebSocketClass;
	try {
		WebSocketClass = await loadWebSocket();
	} catch (error) {
		handlers.onClose(1006, "", new RpcConnectionError(`Could not load the ws package: ${String(error)}`));
		return undefined;
	}
	let socket: WebSocket;
	try {
		socket = new WebSocketClass(url, {
			headers: { authorization: `Bearer ${token}` },
			handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
			maxPayload: MAX_FRAME_BYTES,
			...(tls.ca === undefined ? {} : { ca: tls.ca }),
		});
	} catch (error) {
		handlers.onClose(1006, "", error instanceof Error ? error : new Error(String(error)));
		return undefined;
	}
	let failure: Error | undefined;
	socket.on("unexpected-response", (_request, response) => {
		failure = refusal(url, response.statusCode ?? 0, response.statusMessage ?? "");
		response.resume();
		socket.terminate();
	});
	socket.on("open", () => handlers.onOpen());
	socket.on("message", (data: RawData, isBinary: boolean) => {
		if (isBinary) handlers.onBinary();
		else handlers.onText(textOf(data));
	});
	socket.on("error", (error) => {
		// The close that follows reports it; a refusal's own error says more than ws's.
		failure ??= error;
	});
	socket.on("close", (code, reason) => handlers.onClose(code, reason.toString("utf8"), failure));
	return socket;
}
