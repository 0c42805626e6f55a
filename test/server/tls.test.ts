import { spawnSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AtomicServer } from "../../src/server/serve.js";
import { CLI, childEnv } from "../support/rpc-process.js";
import {
	agentDirs,
	Client,
	serveOptions,
	spawnServe,
	startServer,
	TLS,
	TLS_FILES,
	useServeHarness,
} from "./harness.js";

/** A private key of another certificate. */
const OTHER_KEY = generateKeyPairSync("ec", { namedCurve: "P-256" })
	.privateKey.export({ type: "pkcs8", format: "pem" })
	.toString();

useServeHarness();

/** A GET over https trusting the test certificate: status, headers and body. */
function httpsGet(url: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
	return new Promise((resolve, reject) => {
		const request = httpsRequest(url, { ca: TLS.cert }, (response) => {
			let body = "";
			response.setEncoding("utf8");
			response.on("data", (chunk: string) => {
				body += chunk;
			});
			response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
		});
		request.on("error", reject);
		request.end();
	});
}

describe("atomic serve over TLS", () => {
	it("serves https and wss: a client trusting the certificate attaches, and the login cookie is Secure", async () => {
		const { port, url, controller, lines, loginUrl } = await startServer({ tls: TLS });
		expect(lines).toContain(`atomic serve: wss://127.0.0.1:${port}/ws`);
		expect(loginUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/login\?code=\S+$/);

		expect(JSON.parse((await httpsGet(`https://127.0.0.1:${port}/health`)).body)).toEqual({
			ok: true,
			version: "test",
		});
		const login = await httpsGet(loginUrl ?? "");
		expect(login.status).toBe(303);
		const setCookie = String(login.headers["set-cookie"]);
		expect(setCookie).toMatch(
			new RegExp(`^atomic_token_${port}=atk_[A-Za-z0-9_-]+; HttpOnly; SameSite=Strict; Path=/; Max-Age=\\d+; Secure$`),
		);
		const secret = /^atomic_token_\d+=([^;]+)/.exec(setCookie)?.[1] ?? "";

		expect(url).toBe(`wss://127.0.0.1:${port}/ws`);
		const bearer = await Client.open(url, { ca: TLS.cert, headers: { authorization: `Bearer ${controller}` } });
		expect(await bearer.request({ type: "attach", sessionId: null })).toMatchObject({ success: true });
		const browser = await Client.open(url, {
			ca: TLS.cert,
			headers: { cookie: `atomic_token_${port}=${secret}`, origin: `https://127.0.0.1:${port}` },
		});
		expect(await browser.request({ type: "attach", sessionId: null })).toMatchObject({ success: true });
		await expect(
			Client.open(url, { ca: TLS.cert, headers: { cookie: `atomic_token=${secret}`, origin: "https://evil.example" } }),
		).rejects.toThrow("HTTP 403");
	});

	it("speaks only TLS: a client that does not trust the certificate, or plain HTTP, gets nothing", async () => {
		const { port, url, controller } = await startServer({ tls: TLS });
		await expect(Client.connect(url, controller)).rejects.toThrow(/certificate/i);
		const plain = await new Promise<string>((resolve) => {
			const request = httpRequest(`http://127.0.0.1:${port}/health`, (response) =>
				resolve(`HTTP ${response.statusCode}`),
			);
			request.on("error", (error) => resolve(error.message));
			request.end();
		});
		expect(plain).not.toMatch(/^HTTP 200/);
		expect((await httpsGet(`https://127.0.0.1:${port}/health`)).status).toBe(200);
	});

	it("warns about clear text on a non-loopback address only without TLS", async () => {
		const secure = await startServer({ tls: TLS, host: "0.0.0.0" });
		expect(secure.lines.some((line) => line.includes("clear text"))).toBe(false);
		expect(secure.lines).toContain(`atomic serve: wss://0.0.0.0:${secure.port}/ws`);
		expect((await httpsGet(`https://127.0.0.1:${secure.port}/health`)).status).toBe(200);
		const plain = await startServer({ host: "0.0.0.0" });
		expect(plain.lines.some((line) => line.includes("without TLS") && line.includes("clear text"))).toBe(true);
		expect(plain.lines).toContain(`atomic serve: ws://0.0.0.0:${plain.port}/ws`);
	});

	it("refuses to start with a key that is not the certificate's, or credentials that are not PEM", () => {
		const dirs = agentDirs();
		const make = (cert: string, key: string) => new AtomicServer(serveOptions(dirs, { tls: { cert, key } }));
		expect(() => make(TLS.cert, OTHER_KEY)).toThrow("The TLS key does not match the certificate");
		expect(() => make("not a certificate", TLS.key)).toThrow("The TLS certificate is not a PEM certificate");
		expect(() => make(TLS.cert, "")).toThrow("The TLS key is not a private key");
		expect(() => make("", "")).toThrow("The TLS certificate is not a PEM certificate");
	});
});

describe("atomic serve --tls-cert --tls-key", () => {
	function run(args: string[]) {
		const dirs = agentDirs();
		const result = spawnSync(process.execPath, [CLI, "serve", "--port", "0", "--cwd", dirs.work, ...args], {
			env: childEnv(dirs.agentDir, dirs.home),
			encoding: "utf8",
			timeout: 60_000,
		});
		return { status: result.status, stderr: result.stderr, dirs };
	}

	it("takes both files or neither (usage error, exit 2)", () => {
		for (const args of [
			["--tls-cert", TLS_FILES.cert],
			["--tls-key", TLS_FILES.key],
		]) {
			const result = run(args);
			expect(result.status).toBe(2);
			expect(result.stderr).toContain("--tls-cert and --tls-key go together");
		}
	});

	it("exits 1 with a clear error for a key that does not match, or a file that cannot be read; never serves plain HTTP", () => {
		const dirs = agentDirs();
		const other = join(dirs.root, "other-key.pem");
		writeFileSync(other, OTHER_KEY);
		const folder = join(dirs.root, "a-folder");
		mkdirSync(folder);
		const cases: [string[], string][] = [
			[["--tls-cert", TLS_FILES.cert, "--tls-key", other], "The TLS key does not match the certificate"],
			[["--tls-cert", TLS_FILES.cert, "--tls-key", join(dirs.root, "missing.pem")], "cannot read --tls-key"],
			[["--tls-cert", folder, "--tls-key", TLS_FILES.key], "cannot read --tls-cert"],
			[["--tls-cert", TLS_FILES.key, "--tls-key", TLS_FILES.key], "The TLS certificate is not a PEM certificate"],
		];
		for (const [args, message] of cases) {
			const result = run(args);
			expect(result.status, result.stderr).toBe(1);
			expect(result.stderr).toContain(message);
			expect(result.stderr).not.toContain("atomic serve: ");
		}
	});

	it("serves wss with the files and prints https and wss addresses; --no-login-url prints no login link", async () => {
		const dirs = agentDirs();
		const start = async (extra: string[]) => {
			const args = ["--tls-cert", TLS_FILES.cert, "--tls-key", TLS_FILES.key, ...extra];
			const serve = await spawnServe(dirs, args, (stderr) => {
				const found = /atomic serve: wss:\/\/127\.0\.0\.1:(\d+)\/ws\n/.exec(stderr);
				// The login link comes right after that line, when there is one.
				const complete = extra.includes("--no-login-url") || stderr.includes("/login?code=");
				return found?.[1] && complete ? Number(found[1]) : undefined;
			});
			const port = serve.found;
			expect((await httpsGet(`https://127.0.0.1:${port}/health`)).status).toBe(200);
			expect(await serve.stop()).toBe(0);
			return { stderr: serve.stderr(), port };
		};
		const withLink = await start([]);
		expect(withLink.stderr).toMatch(
			new RegExp(`https://127\\.0\\.0\\.1:${withLink.port}/login\\?code=[A-Za-z0-9_-]{43}`),
		);
		const without = await start(["--no-login-url"]);
		expect(without.stderr).not.toContain("/login");
	});
});
