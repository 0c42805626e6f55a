import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { cookieTokens, type ServerAuth, TOKEN_COOKIE, tokenCookie } from "./auth.js";

/** How long a browser keeps its login: 30 days. */
const COOKIE_MAX_AGE_SECONDS = 30 * 24 * 60 * 60;
/** The largest form `POST /login` reads. */
const MAX_FORM_BYTES = 4096;
/** What a token looks like (`atomic token create`); anything else is not tried. */
const TOKEN_SHAPE = /^atk_[A-Za-z0-9_-]{1,200}$/;
/**
 * Headers of every answer here: never cached, never framed, no referrer to other sites (the URL
 * may hold the code). Not `no-referrer`: with it a browser sends the form's POST with
 * `Origin: null`, which the Origin check refuses.
 */
const PAGE_HEADERS: OutgoingHttpHeaders = {
	"cache-control": "no-store",
	"content-security-policy": "default-src 'none'; form-action 'self'; frame-ancestors 'none'",
	"x-frame-options": "DENY",
	"x-content-type-options": "nosniff",
	"referrer-policy": "same-origin",
};

const LINK_REFUSED = [
	"This login link was already used, or it is not this server's.",
	"For a new one, restart atomic serve: it prints a login link when it starts.",
	"Or log in with a token (atomic token create) at /login.",
	"",
].join("\n");

function sha256(text: string): Buffer {
	return createHash("sha256").update(text, "utf8").digest();
}

function formPage(message: string | undefined): string {
	return [
		"<!doctype html>",
		'<html lang="en"><head><meta charset="utf-8"><title>atomic serve: log in</title></head><body>',
		message === undefined ? "" : `<p>${message}</p>`,
		'<form method="post" action="/login">',
		'<label>Token <input name="token" type="password" autocomplete="off" placeholder="atk_..." required></label>',
		'<button type="submit">Log in</button>',
		"</form>",
		"<p>Make a token with <code>atomic token create --role controller --name NAME</code>.</p>",
		"</body></html>",
		"",
	].join("\n");
}

export interface WebLoginOptions {
	/** Whether the server speaks TLS: the cookie is then `Secure`. */
	secure: boolean;
	/** Whether a one-time login code exists (`--no-login-url` turns it off). */
	loginUrl: boolean;
	log(line: string): void;
}

/**
 * Logging a browser in to `atomic serve`: `GET /login?code=` exchanges the one-time code printed at
 * start for a new controller token (`web-…`) held in the login cookie (tokenCookie); `GET /login` is a
 * form to paste a token, `POST /login` checks it and sets the cookie to it; `POST /logout` clears
 * the cookie and revokes a token the login URL made. POSTs from pages of other origins get 403.
 */
export class WebLogin {
	/** The one-time code; undefined once used, or when there is no login URL. */
	private code: string | undefined;

	constructor(
		private readonly auth: ServerAuth,
		private readonly options: WebLoginOptions,
	) {
		this.code = options.loginUrl ? randomBytes(32).toString("base64url") : undefined;
	}

	/** The path and query of the one-time login URL, or undefined when there is none (left). */
	loginPath(): string | undefined {
		return this.code === undefined ? undefined : `/login?code=${this.code}`;
	}

	/** Answers a request for `/login` or `/logout` (`path`). */
	handle(request: IncomingMessage, response: ServerResponse, path: "/login" | "/logout"): void {
		const method = request.method ?? "GET";
		const allowed = path === "/login" ? ["GET", "POST"] : ["POST"];
		if (!allowed.includes(method)) {
			request.resume();
			this.text(response, 405, `Method Not Allowed: ${path} answers ${allowed.join(" and ")}\n`, {
				allow: allowed.join(", "),
			});
			return;
		}
		if (method === "GET") {
			const query = (request.url ?? "").split("?").slice(1).join("?");
			const code = new URLSearchParams(query).get("code");
			if (code === null) this.html(response, 200, formPage(undefined));
			else this.exchange(request, response, code);
			return;
		}
		if (!this.auth.originAllowed(request)) {
			request.resume();
			this.text(response, 403, "Forbidden: a page of this Origin may not log in or out here (see --allow-origin)\n");
			return;
		}
		if (path === "/logout") this.logout(request, response);
		else this.pasted(request, response);
	}

	/** `GET /login?code=`: the code, once, for a new controller token in the cookie. */
	private exchange(request: IncomingMessage, response: ServerResponse, presented: string): void {
		const matched = this.auth.attempt(request, () => (this.codeMatches(presented) ? true : undefined));
		if (!matched.ok) {
			this.text(response, matched.status, matched.status === 401 ? LINK_REFUSED : `${matched.text}\n`);
			return;
		}
		let secret: string;
		try {
			secret = this.createWebToken();
		} catch (error) {
			// The code stays valid: the link works again once the tokens file can be written.
			const reason = error instanceof Error ? error.message : String(error);
			this.options.log(`Cannot make a token for the login link: ${reason}`);
			this.text(response, 500, `Cannot make a token for this login: ${reason}\n`);
			return;
		}
		this.code = undefined;
		this.redirect(response, "/", [this.cookie(request, secret, COOKIE_MAX_AGE_SECONDS)]);
	}

	/** Whether `presented` is the unused code, compared in constant time. */
	private codeMatches(presented: string): boolean {
		if (this.code === undefined) return false;
		return timingSafeEqual(sha256(presented), sha256(this.code));
	}

	/** A new controller token named `web-<random>`, marked as the login URL's; returns its secret. */
	private createWebToken(): string {
		const taken = new Set(this.auth.tokens.list().map((token) => token.name));
		let name: string;
		do name = `web-${randomBytes(4).toString("hex")}`;
		while (taken.has(name));
		return this.auth.tokens.create(name, "controller", new Date(), "login-url");
	}

	/** `POST /login` with a pasted token: the cookie holds that token (its role included). */
	private pasted(request: IncomingMessage, response: ServerResponse): void {
		const type = (request.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
		if (type !== "application/x-www-form-urlencoded") {
			request.resume();
			this.text(response, 415, "Unsupported Media Type: send the form (application/x-www-form-urlencoded)\n");
			return;
		}
		readForm(request, (form) => {
			if (form === undefined) {
				this.text(response, 413, `Payload Too Large: the form may be at most ${MAX_FORM_BYTES} bytes\n`, {
					connection: "close",
				});
				return;
			}
			const token = new URLSearchParams(form).get("token")?.trim() ?? "";
			const result = this.auth.authenticate(request, TOKEN_SHAPE.test(token) ? [token] : []);
			if (result.ok) this.redirect(response, "/", [this.cookie(request, token, COOKIE_MAX_AGE_SECONDS)]);
			else if (result.status === 401) this.html(response, 401, formPage("That token is not valid here."));
			else this.text(response, result.status, `${result.text}\n`);
		});
	}

	/** `POST /logout`: clears the cookie; a token the login URL made is revoked. */
	private logout(request: IncomingMessage, response: ServerResponse): void {
		request.resume();
		for (const secret of cookieTokens(request)) {
			try {
				const token = this.auth.tokens.verify(secret);
				if (token?.madeBy === "login-url") this.auth.tokens.revoke(token.name);
			} catch (error) {
				this.options.log(
					`Logout: cannot revoke the login's token: ${error instanceof Error ? error.message : String(error)}`,
				);
			}
		}
		// Both names are cleared: this server's cookie, and a plain one that would log the browser in again.
		const cleared = this.cookie(request, "", 0);
		const name = tokenCookie(request);
		this.redirect(
			response,
			"/login",
			name === TOKEN_COOKIE ? [cleared] : [cleared, cleared.replace(name, TOKEN_COOKIE)],
		);
	}

	/** The login cookie (its name says which port: see tokenCookie). */
	private cookie(request: IncomingMessage, secret: string, maxAge: number): string {
		const secure = this.options.secure ? "; Secure" : "";
		return `${tokenCookie(request)}=${secret}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAge}${secure}`;
	}

	private redirect(response: ServerResponse, location: string, cookies: string[]): void {
		response.writeHead(303, { ...PAGE_HEADERS, location, "set-cookie": cookies, "content-type": "text/plain" });
		response.end(`See ${location}\n`);
	}

	private text(response: ServerResponse, status: number, text: string, headers: OutgoingHttpHeaders = {}): void {
		response.writeHead(status, { ...PAGE_HEADERS, ...headers, "content-type": "text/plain; charset=utf-8" });
		response.end(text);
	}

	private html(response: ServerResponse, status: number, page: string): void {
		response.writeHead(status, { ...PAGE_HEADERS, "content-type": "text/html; charset=utf-8" });
		response.end(page);
	}
}

/**
 * The body of `request` as text, handed to `done` once; undefined when it is over MAX_FORM_BYTES
 * (the rest is read and dropped). A request that breaks off gets no call.
 */
function readForm(request: IncomingMessage, done: (form: string | undefined) => void): void {
	const declared = Number(request.headers["content-length"]);
	if (Number.isFinite(declared) && declared > MAX_FORM_BYTES) {
		request.resume();
		done(undefined);
		return;
	}
	const chunks: Buffer[] = [];
	let size = 0;
	let over = false;
	request.on("data", (chunk: Buffer) => {
		if (over) return;
		size += chunk.length;
		if (size > MAX_FORM_BYTES) {
			over = true;
			done(undefined);
			return;
		}
		chunks.push(chunk);
	});
	request.on("end", () => {
		if (!over) done(Buffer.concat(chunks).toString("utf8"));
	});
	request.on("error", () => request.destroy());
}
