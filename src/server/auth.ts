import type { IncomingMessage } from "node:http";
import { type StoredToken, TokenStore } from "./tokens.js";

/** After this many failed authentications from one address, it waits FAILURE_PAUSE_MS per attempt. */
const FREE_FAILURES = 5;
const FAILURE_PAUSE_MS = 1000;
/** The cookie a browser logged in at `/login` sends: the secret of a token. */
export const TOKEN_COOKIE = "atomic_token";
/** How many token cookies of one request are tried (a browser may send several). */
const MAX_TOKEN_COOKIES = 4;

/**
 * The login cookie's name for the address the browser used: `atomic_token_<port>`, the port of
 * its `Host` (`atomic_token` when it names none). A browser shares a host's cookies among all
 * its ports, so two servers on one host each need their own; the port the browser sees (not the
 * one the server listens on, which a proxy may hide or change) keeps it the same across restarts.
 */
export function tokenCookie(request: IncomingMessage): string {
	const port = /:(\d{1,5})$/.exec(request.headers.host ?? "")?.[1];
	return port === undefined ? TOKEN_COOKIE : `${TOKEN_COOKIE}_${port}`;
}

/** The secrets a request's cookies present: its login cookie (tokenCookie), then a plain `atomic_token`. */
export function cookieTokens(request: IncomingMessage): string[] {
	const header = request.headers.cookie;
	const name = tokenCookie(request);
	const own = cookieValues(header, name);
	return (name === TOKEN_COOKIE ? own : [...own, ...cookieValues(header, TOKEN_COOKIE)]).slice(0, MAX_TOKEN_COOKIES);
}

export type Refusal = { ok: false; status: number; text: string };
export type AuthResult = { ok: true; token: StoredToken } | Refusal;

/**
 * The values of the cookies named `name` in a Cookie header, in order. Never throws: parts
 * without `=` are skipped, a value in double quotes loses them, a value whose percent-encoding
 * is broken is kept as sent.
 */
export function cookieValues(header: string | string[] | undefined, name: string): string[] {
	const text = Array.isArray(header) ? header.join(";") : (header ?? "");
	const values: string[] = [];
	for (const part of text.split(";")) {
		const equals = part.indexOf("=");
		if (equals < 0 || part.slice(0, equals).trim() !== name) continue;
		let value = part.slice(equals + 1).trim();
		if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
		values.push(percentDecoded(value));
	}
	return values;
}

/** `value` with its percent-escapes decoded, or as it is when they are broken (it then matches no token). */
function percentDecoded(value: string): string {
	try {
		return decodeURIComponent(value);
	} catch {
		return value;
	}
}

/**
 * Who may open `/ws` (and log in at `/login`): a request from a page of another origin is
 * refused (403), then it must carry a token (`Authorization: Bearer`, or the login cookie of a
 * browser that logged in); repeated failures from one address are slowed (429). A
 * tokens file that cannot be read refuses every token.
 */
export class ServerAuth {
	readonly tokens: TokenStore;
	private readonly failures = new Map<string, { count: number; at: number }>();

	constructor(
		agentDir: string,
		private readonly allowOrigins: readonly string[],
		private readonly log: (line: string) => void,
	) {
		this.tokens = new TokenStore(agentDir);
	}

	/**
	 * Whether the page that sent `request` may act here: no Origin (not a browser's page), the
	 * server's own, or one given with `--allow-origin`.
	 */
	originAllowed(request: IncomingMessage): boolean {
		const origin = request.headers.origin;
		if (origin === undefined) return true;
		const own = [`http://${request.headers.host}`, `https://${request.headers.host}`];
		return own.includes(origin) || this.allowOrigins.includes(origin);
	}

	/** Whether the WebSocket upgrade `request` may connect, and with which token. */
	check(request: IncomingMessage): AuthResult {
		if (!this.originAllowed(request)) {
			return { ok: false, status: 403, text: "Forbidden: this Origin may not connect (see --allow-origin)" };
		}
		// A Bearer header, when sent, is the credential; otherwise the login cookie.
		const header = request.headers.authorization;
		const presented = header === undefined ? cookieTokens(request) : [/^Bearer\s+(\S+)$/i.exec(header)?.[1] ?? ""];
		return this.authenticate(request, presented);
	}

	/** Which stored token among `presented` is the request's, counting a failure when none is. */
	authenticate(request: IncomingMessage, presented: readonly string[]): AuthResult {
		const result = this.attempt(request, () => this.verify(presented));
		if (!result.ok) return result;
		return { ok: true, token: result.value };
	}

	/**
	 * Runs `attempt` unless the request's address failed too often just now (429). An attempt that
	 * finds nothing counts as a failure of that address (401); one that succeeds clears its count.
	 */
	attempt<T>(request: IncomingMessage, attempt: () => T | undefined): { ok: true; value: T } | Refusal {
		const address = request.socket.remoteAddress ?? "unknown";
		const failed = this.failures.get(address);
		if (failed && failed.count >= FREE_FAILURES && Date.now() - failed.at < FAILURE_PAUSE_MS) {
			return { ok: false, status: 429, text: "Too Many Requests: wait before trying another token" };
		}
		const value = attempt();
		if (value === undefined) {
			this.failures.set(address, { count: (failed?.count ?? 0) + 1, at: Date.now() });
			return {
				ok: false,
				status: 401,
				text: "Unauthorized: send Authorization: Bearer <token> (atomic token create), or log in at /login",
			};
		}
		this.failures.delete(address);
		return { ok: true, value };
	}

	/** The stored token one of `presented` is; a tokens file that cannot be read refuses them all. */
	private verify(presented: readonly string[]): StoredToken | undefined {
		if (presented.length === 0) return undefined;
		try {
			for (const secret of presented) {
				const token = this.tokens.verify(secret);
				if (token) return token;
			}
		} catch (error) {
			this.log(`Refusing every token: ${error instanceof Error ? error.message : String(error)}`);
		}
		return undefined;
	}
}
