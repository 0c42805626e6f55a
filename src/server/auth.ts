import type { IncomingMessage } from "node:http";
import { type StoredToken, TokenStore } from "./tokens.js";

/** After this many failed authentications from one address, it waits FAILURE_PAUSE_MS per attempt. */
const FREE_FAILURES = 5;
const FAILURE_PAUSE_MS = 1000;

export type AuthResult = { ok: true; token: StoredToken } | { ok: false; status: number; text: string };

/**
 * Who may open `/ws`: an upgrade from a page of another origin is refused (403), then the
 * request must carry a token (`Authorization: Bearer`); repeated failures from one address are
 * slowed (429). A tokens file that cannot be read refuses every token.
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

	/** Whether the WebSocket upgrade `request` may connect, and with which token. */
	check(request: IncomingMessage): AuthResult {
		const origin = request.headers.origin;
		const own = [`http://${request.headers.host}`, `https://${request.headers.host}`];
		if (origin !== undefined && !own.includes(origin) && !this.allowOrigins.includes(origin)) {
			return { ok: false, status: 403, text: "Forbidden: this Origin may not connect (see --allow-origin)" };
		}
		const address = request.socket.remoteAddress ?? "unknown";
		const failed = this.failures.get(address);
		if (failed && failed.count >= FREE_FAILURES && Date.now() - failed.at < FAILURE_PAUSE_MS) {
			return { ok: false, status: 429, text: "Too Many Requests: wait before trying another token" };
		}
		const header = request.headers.authorization ?? "";
		const presented = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
		let token: StoredToken | undefined;
		try {
			token = presented === undefined ? undefined : this.tokens.verify(presented);
		} catch (error) {
			this.log(`Refusing every token: ${error instanceof Error ? error.message : String(error)}`);
		}
		if (!token) {
			this.failures.set(address, { count: (failed?.count ?? 0) + 1, at: Date.now() });
			return { ok: false, status: 401, text: "Unauthorized: send Authorization: Bearer <token> (atomic token create)" };
		}
		this.failures.delete(address);
		return { ok: true, token };
	}
}
