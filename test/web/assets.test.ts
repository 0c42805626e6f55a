/**
 * How `atomic serve` sends the web page (no browser needed): the three built files with their
 * types and security headers, nothing else under any path, and nothing fetched from elsewhere.
 */
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startWebServer, useWebHarness, WEB_ROOT } from "./support.js";

useWebHarness();

/** A raw GET (the path sent as written: no URL normalisation on the way). */
function get(port: number, path: string, method = "GET") {
	return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
		const sent = request({ host: "127.0.0.1", port, path, method }, (response) => {
			let body = "";
			response.setEncoding("utf8");
			response.on("data", (chunk: string) => {
				body += chunk;
			});
			response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
		});
		sent.on("error", reject);
		sent.end();
	});
}

describe("the web page's files", () => {
	it("serves the page, its script and its styles with their types, a strict CSP and nosniff", async () => {
		const { port } = await startWebServer();
		const expected = [
			["/", "text/html; charset=utf-8", "index.html"],
			["/app.js", "text/javascript; charset=utf-8", "app.js"],
			["/app.css", "text/css; charset=utf-8", "app.css"],
		];
		for (const [path = "", type, file = ""] of expected) {
			const answer = await get(port, path);
			expect(answer.status, path).toBe(200);
			expect(answer.headers["content-type"]).toBe(type);
			expect(answer.headers["x-content-type-options"]).toBe("nosniff");
			const policy = String(answer.headers["content-security-policy"]);
			expect(policy).toContain("default-src 'none'");
			expect(policy).toContain("script-src 'self'");
			expect(policy).toContain("connect-src 'self'");
			expect(policy).not.toContain("unsafe-inline");
			expect(answer.body).toBe(readFileSync(join(WEB_ROOT, file), "utf8"));
		}
	});

	it("answers 404 for every other path, traversals included", async () => {
		const { port } = await startWebServer();
		for (const path of [
			"/index.html",
			"/../package.json",
			"/%2e%2e/package.json",
			"/app.js/../../package.json",
			"/..%2f..%2fpackage.json",
			"//etc/passwd",
			"/app.js.map",
			"/web/app.js",
		]) {
			const answer = await get(port, path);
			expect(answer.status, path).toBe(404);
			expect(answer.body).not.toContain('"name": "atomic-agent"');
		}
		expect((await get(port, "/", "POST")).status).toBe(404);
	});

	it("holds no script or style from elsewhere: no inline script, no external address", () => {
		const html = readFileSync(join(WEB_ROOT, "index.html"), "utf8");
		const scripts = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)];
		expect(scripts.length).toBe(1);
		for (const [tag, body] of scripts) {
			expect(tag).toContain('src="/app.js"');
			expect(body).toBe("");
		}
		expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
		expect(html).not.toMatch(/\son[a-z]+=/);
		expect(readFileSync(join(WEB_ROOT, "app.css"), "utf8")).not.toMatch(/url\(\s*["']?(https?:)?\/\//);
	});
});
