import { IncomingMessage } from "node:http";
import { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { cookieTokens, cookieValues, tokenCookie } from "../../src/server/auth.js";
import { Client, startServer, useServeHarness } from "./harness.js";

useServeHarness();

/** The parts of a Set-Cookie header: its value and its attributes (lower-cased names). */
function parseSetCookie(header: string | null): { name: string; value: string; attributes: Map<string, string> } {
	expect(header).not.toBeNull();
	const [pair = "", ...rest] = (header ?? "").split(";").map((part) => part.trim());
	const equals = pair.indexOf("=");
	const attributes = new Map<string, string>();
	for (const part of rest) {
		const [key = "", value = ""] = part.split("=");
		attributes.set(key.toLowerCase(), value);
	}
	return { name: pair.slice(0, equals), value: pair.slice(equals + 1), attributes };
}

/** Opens `url` as a browser would follow the printed link (without following the redirect). */
function open(url: string, headers: Record<string, string> = {}): Promise<Response> {
	return fetch(url, { redirect: "manual", headers });
}

function postForm(url: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
	return fetch(url, {
		method: "POST",
		redirect: "manual",
		headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
		body: new URLSearchParams(form).toString(),
	});
}

describe("atomic serve: the web login", () => {
	it("the printed login URL logs a browser in once, with an HttpOnly, SameSite=Strict cookie holding a stored web- token", async () => {
		const { loginUrl, tokens, lines, port } = await startServer();
		expect(lines.some((line) => line.startsWith("Log in from a browser"))).toBe(true);
		expect(loginUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/login\?code=[A-Za-z0-9_-]{43}$/);
		const first = await open(loginUrl ?? "");
		expect(first.status).toBe(303);
		expect(first.headers.get("location")).toBe("/");
		const cookie = parseSetCookie(first.headers.get("set-cookie"));
		// One name per port: a browser shares a host's cookies among its ports.
		expect(cookie.name).toBe(`atomic_token_${port}`);
		expect(cookie.value).toMatch(/^atk_[A-Za-z0-9_-]{43}$/);
		expect(cookie.attributes.has("httponly")).toBe(true);
		expect(cookie.attributes.get("samesite")).toBe("Strict");
		expect(cookie.attributes.get("path")).toBe("/");
		expect(cookie.attributes.get("max-age")).toBe(String(30 * 24 * 60 * 60));
		expect(cookie.attributes.has("secure")).toBe(false);

		// A real stored token: listed, a controller, made by the login URL.
		const made = tokens.verify(cookie.value);
		expect(made).toMatchObject({ role: "controller", madeBy: "login-url" });
		expect(made?.name).toMatch(/^web-[0-9a-f]{8}$/);
		expect(tokens.list().map((token) => token.name)).toContain(made?.name);

		const again = await open(loginUrl ?? "");
		expect(again.status).toBe(401);
		expect(again.headers.get("set-cookie")).toBeNull();
		const page = await again.text();
		expect(page).toContain("already used");
		expect(page).toContain("restart atomic serve");
		expect(tokens.list().filter((token) => token.name.startsWith("web-"))).toHaveLength(1);
	});

	it("refuses an empty, wrong, too long or too short code with 401, without making a token", async () => {
		const { origin, tokens, loginUrl } = await startServer();
		const code = new URL(loginUrl ?? "").searchParams.get("code") ?? "";
		for (const wrong of ["", "x", `${code}x`, code.slice(1)]) {
			const response = await open(`${origin}/login?code=${encodeURIComponent(wrong)}`);
			expect(response.status).toBe(401);
			expect(await response.text()).toContain("/login");
		}
		expect(tokens.list().some((token) => token.name.startsWith("web-"))).toBe(false);
		// The right code still works: it stays valid until used.
		expect((await open(loginUrl ?? "")).status).toBe(303);
	});

	it("a WebSocket with the cookie and the server's own Origin connects and attaches; another Origin gets 403", async () => {
		const { loginUrl, url, origin, tokens } = await startServer();
		const secret = parseSetCookie((await open(loginUrl ?? "")).headers.get("set-cookie")).value;
		const client = await Client.open(url, { headers: { cookie: `atomic_token=${secret}`, origin } });
		const attached = await client.request({ type: "attach", sessionId: null });
		expect(attached).toMatchObject({ success: true, data: { seq: 0 } });
		const state = await client.request({ type: "get_state" });
		expect(state.success).toBe(true);

		await expect(
			Client.open(url, { headers: { cookie: `atomic_token=${secret}`, origin: "https://evil.example" } }),
		).rejects.toThrow("HTTP 403");
		// Among other cookies, with spaces and a value in quotes.
		const mixed = await Client.open(url, {
			headers: {
				cookie: ` theme=dark ;session="x"; atomic_token="${secret}" ;z=%E0%A4%A`,
			},
		});
		expect(mixed.socket.readyState).toBe(WebSocket.OPEN);

		// Revoked: the same cookie is refused like any other unknown token.
		const name = tokens.verify(secret)?.name ?? "";
		tokens.revoke(name);
		await expect(Client.open(url, { headers: { cookie: `atomic_token=${secret}`, origin } })).rejects.toThrow(
			"HTTP 401",
		);
	});

	it("the login token survives a restart of the server", async () => {
		const first = await startServer();
		const secret = parseSetCookie((await open(first.loginUrl ?? "")).headers.get("set-cookie")).value;
		await first.close();
		const second = await startServer({ dirs: first.dirs });
		expect(second.loginUrl).not.toBe(first.loginUrl);
		const client = await Client.open(second.url, {
			headers: { cookie: `atomic_token=${secret}`, origin: second.origin },
		});
		expect((await client.request({ type: "attach", sessionId: null })).success).toBe(true);
	});

	it("GET /login is a form; a pasted observer token logs the browser in as an observer", async () => {
		const { origin, url, observer } = await startServer();
		const form = await open(`${origin}/login`);
		expect(form.status).toBe(200);
		expect(form.headers.get("content-type")).toContain("text/html");
		expect(form.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
		const html = await form.text();
		expect(html).toContain('<form method="post" action="/login">');
		expect(html).toContain('name="token"');

		const pasted = await postForm(`${origin}/login`, { token: ` ${observer} ` }, { origin });
		expect(pasted.status).toBe(303);
		expect(pasted.headers.get("location")).toBe("/");
		const cookie = parseSetCookie(pasted.headers.get("set-cookie"));
		expect(cookie.value).toBe(observer);
		expect(cookie.attributes.get("samesite")).toBe("Strict");

		const client = await Client.open(url, { headers: { cookie: `atomic_token=${cookie.value}`, origin } });
		expect((await client.request({ type: "list_sessions" })).success).toBe(true);
		expect((await client.request({ type: "attach", sessionId: null })).success).toBe(false);
		const prompt = await client.request({ type: "prompt", message: "hello" });
		expect(prompt.success).toBe(false);
		expect(String(prompt.error)).toContain("observer");
		expect(String(prompt.error)).toContain('"phone"');
	});

	it("a wrong pasted token gets 401 and counts as a failure: repeated ones are slowed down (429)", async () => {
		const { origin } = await startServer();
		for (let attempt = 0; attempt < 5; attempt++) {
			const wrong = await postForm(`${origin}/login`, { token: `atk_wrong${attempt}` }, { origin });
			expect(wrong.status).toBe(401);
			expect(wrong.headers.get("set-cookie")).toBeNull();
			expect(await wrong.text()).toContain("not valid");
		}
		// Every further failure restarts the pause, so one of these comes within it.
		let slowed = false;
		for (let attempt = 0; attempt < 50 && !slowed; attempt++) {
			const response = await postForm(`${origin}/login`, { token: "not-a-token" }, { origin });
			expect([401, 429]).toContain(response.status);
			slowed = response.status === 429;
		}
		expect(slowed).toBe(true);
	});

	it("POST /login takes only a small form", async () => {
		const { origin, controller } = await startServer();
		const json = await fetch(`${origin}/login`, {
			method: "POST",
			headers: { "content-type": "application/json", origin },
			body: JSON.stringify({ token: controller }),
		});
		expect(json.status).toBe(415);
		const large = await postForm(`${origin}/login`, { token: controller, padding: "x".repeat(10_000) }, { origin });
		expect(large.status).toBe(413);
		expect(large.headers.get("set-cookie")).toBeNull();
		expect((await fetch(`${origin}/logout`)).status).toBe(405);
		expect((await fetch(`${origin}/health`)).status).toBe(200);
	});

	it("POST /login and POST /logout from a page of another origin get 403", async () => {
		const { origin, loginUrl, controller, tokens } = await startServer();
		const secret = parseSetCookie((await open(loginUrl ?? "")).headers.get("set-cookie")).value;
		const login = await postForm(`${origin}/login`, { token: controller }, { origin: "https://evil.example" });
		expect(login.status).toBe(403);
		expect(login.headers.get("set-cookie")).toBeNull();
		const logout = await fetch(`${origin}/logout`, {
			method: "POST",
			redirect: "manual",
			headers: { origin: "https://evil.example", cookie: `atomic_token=${secret}` },
		});
		expect(logout.status).toBe(403);
		expect(logout.headers.get("set-cookie")).toBeNull();
		expect(tokens.verify(secret)).toBeDefined();
	});

	it("logout clears the cookie and revokes the token a login URL made, not a pasted one", async () => {
		const { origin, url, loginUrl, tokens, observer, port } = await startServer();
		const secret = parseSetCookie((await open(loginUrl ?? "")).headers.get("set-cookie")).value;
		const name = tokens.verify(secret)?.name;
		const logout = await fetch(`${origin}/logout`, {
			method: "POST",
			redirect: "manual",
			headers: { origin, cookie: `atomic_token_${port}=${secret}` },
		});
		expect(logout.status).toBe(303);
		expect(logout.headers.get("location")).toBe("/login");
		const cleared = logout.headers.getSetCookie().map((header) => parseSetCookie(header));
		expect(cleared).toMatchObject([
			{ name: `atomic_token_${port}`, value: "" },
			{ name: "atomic_token", value: "" },
		]);
		expect(cleared[0]?.attributes.get("max-age")).toBe("0");
		expect(tokens.verify(secret)).toBeUndefined();
		expect(tokens.list().map((token) => token.name)).not.toContain(name);
		await expect(Client.open(url, { headers: { cookie: `atomic_token=${secret}`, origin } })).rejects.toThrow(
			"HTTP 401",
		);

		const pasted = await fetch(`${origin}/logout`, {
			method: "POST",
			redirect: "manual",
			headers: { origin, cookie: `atomic_token=${observer}` },
		});
		expect(pasted.status).toBe(303);
		expect(tokens.verify(observer)).toMatchObject({ name: "phone" });
	});

	it("garbage cookies get 401, never crash the server", async () => {
		const { origin, url } = await startServer();
		const garbage = [
			"atomic_token=%",
			"atomic_token=%E0%A4%A",
			"atomic_token",
			";;;",
			"=",
			"=atomic_token",
			'atomic_token="',
			"atomic_token=\u00e9\u00e8",
			`atomic_token=${"a".repeat(6000)}`,
			"atomic_token=a; atomic_token=b; atomic_token=c; atomic_token=d; atomic_token=e",
		];
		for (const cookie of garbage) {
			await expect(Client.open(url, { headers: { cookie } })).rejects.toThrow(/HTTP 4(01|29)/);
			const logout = await fetch(`${origin}/logout`, {
				method: "POST",
				redirect: "manual",
				headers: { origin, cookie },
			});
			expect(logout.status).toBe(303);
		}
		expect((await fetch(`${origin}/health`)).status).toBe(200);
	});

	it("reads Cookie headers robustly", () => {
		expect(cookieValues(undefined, "atomic_token")).toEqual([]);
		expect(cookieValues("", "atomic_token")).toEqual([]);
		expect(cookieValues(" a=1 ; atomic_token = x ;b=2", "atomic_token")).toEqual(["x"]);
		expect(cookieValues('atomic_token="quoted"', "atomic_token")).toEqual(["quoted"]);
		expect(cookieValues("atomic_token=%41%42", "atomic_token")).toEqual(["AB"]);
		expect(cookieValues("atomic_token=%E0%A4%A", "atomic_token")).toEqual(["%E0%A4%A"]);
		expect(cookieValues("atomic_token=a=b", "atomic_token")).toEqual(["a=b"]);
		expect(cookieValues(["atomic_token=1", "atomic_token=2"], "atomic_token")).toEqual(["1", "2"]);
		expect(cookieValues("xatomic_token=1; atomic_tokenx=2; atomic_token", "atomic_token")).toEqual([]);
	});

	it("without a login URL no code exists: nothing is printed and every code is refused", async () => {
		const { origin, lines, loginUrl } = await startServer({ loginUrl: false });
		expect(loginUrl).toBeUndefined();
		expect(lines.some((line) => line.includes("/login"))).toBe(false);
		expect((await open(`${origin}/login?code=anything`)).status).toBe(401);
		expect((await open(`${origin}/login`)).status).toBe(200);
	});
});

describe("the login cookie's name", () => {
	function requestTo(host: string | undefined, cookie?: string): IncomingMessage {
		const request = new IncomingMessage(new Socket());
		if (host !== undefined) request.headers.host = host;
		if (cookie !== undefined) request.headers.cookie = cookie;
		return request;
	}

	it("is per port of the address the browser used, and plain without a port", () => {
		expect(tokenCookie(requestTo("127.0.0.1:4317"))).toBe("atomic_token_4317");
		expect(tokenCookie(requestTo("[::1]:8080"))).toBe("atomic_token_8080");
		expect(tokenCookie(requestTo("agent.example.com"))).toBe("atomic_token");
		expect(tokenCookie(requestTo("[::1]"))).toBe("atomic_token");
		expect(tokenCookie(requestTo(undefined))).toBe("atomic_token");
	});

	it("reads this port's cookie first, then a plain one, never another port's", () => {
		const cookie = "atomic_token_9999=other; atomic_token=plain; atomic_token_4317=mine";
		expect(cookieTokens(requestTo("127.0.0.1:4317", cookie))).toEqual(["mine", "plain"]);
		expect(cookieTokens(requestTo("localhost", cookie))).toEqual(["plain"]);
	});
});
