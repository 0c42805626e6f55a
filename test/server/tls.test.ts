import { spawn, spawnSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { createAgentSession } from "../../src/runtime/facade/create-agent-session.js";
import { AtomicServer, type ServeOptions } from "../../src/server/serve.js";
import { TokenStore } from "../../src/server/tokens.js";
import { LlmServer } from "../support/llm-server.js";
import { CLI, childEnv, makeAgentDir } from "../support/rpc-process.js";

const CERT_FILE = fileURLToPath(new URL("../support/tls/cert.pem", import.meta.url));
const KEY_FILE = fileURLToPath(new URL("../support/tls/key.pem", import.meta.url));
const CERT = readFileSync(CERT_FILE, "utf8");
const KEY = readFileSync(KEY_FILE, "utf8");
/** A private key of another certificate. */
const OTHER_KEY = generateKeyPairSync("ec", { namedCurve: "P-256" })
	.privateKey.export({ type: "pkcs8", format: "pem" })
	.toString();

let llm: LlmServer;
const cleanups: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
	llm = await LlmServer.start();
});
afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
	await llm.close();
});

function serverOptions(dirs: ReturnType<typeof makeAgentDir>, lines: string[]): ServeOptions {
	return {
		host: "127.0.0.1",
		port: 0,
		cwd: dirs.work,
		agentDir: dirs.agentDir,
		version: "test",
		log: (line) => lines.push(line),
		createSession: ({ cwd, sessionId, approve }) =>
			createAgentSession({
				cwd,
				session: sessionId,
				approve,
				agentDir: dirs.agentDir,
				model: "mock/mock-model",
				noSession: true,
			}).session,
	};
}

/** A server with TLS (unless `tls` is false) and a controller token; keeps what it logs. */
async function startServer(overrides: Partial<ServeOptions> = {}, tls = true) {
	const dirs = makeAgentDir({ server: llm });
	cleanups.push(() => dirs.cleanup());
	const controller = new TokenStore(dirs.agentDir).create("laptop", "controller");
	const lines: string[] = [];
	const server = new AtomicServer({
		...serverOptions(dirs, lines),
		...(tls ? { tls: { cert: CERT, key: KEY } } : {}),
		...overrides,
	});
	const port = await server.listen();
	cleanups.push(() => server.close());
	return { port, controller, lines, dirs };
}

/** A GET over https trusting the test certificate: status, headers and body. */
function httpsGet(url: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
	return new Promise((resolve, reject) => {
		const request = httpsRequest(url, { ca: CERT }, (response) => {
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

function connect(url: string, options: WebSocket.ClientOptions): Promise<WebSocket> {
	const socket = new WebSocket(url, options);
	cleanups.push(() => socket.terminate());
	return new Promise((resolve, reject) => {
		socket.once("open", () => resolve(socket));
		socket.once("unexpected-response", (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
		socket.once("error", reject);
	});
}

function reply(socket: WebSocket, command: Record<string, unknown>): Promise<Record<string, unknown>> {
	return new Promise((resolve) => {
		socket.on("message", (data) => {
			const record: unknown = JSON.parse(String(data));
			if (typeof record === "object" && record !== null && "id" in record && record.id === command.id) {
				resolve({ ...record });
			}
		});
		socket.send(JSON.stringify(command));
	});
}

describe("atomic serve over TLS", () => {
	it("serves https and wss: a client trusting the certificate attaches, and the login cookie is Secure", async () => {
		const { port, controller, lines } = await startServer();
		expect(lines).toContain(`atomic serve: wss://127.0.0.1:${port}/ws`);
		const loginUrl = lines.map((line) => /(https:\/\/127\.0\.0\.1:\d+\/login\?code=\S+)/.exec(line)?.[1]).find(Boolean);
		expect(loginUrl).toBeDefined();

		expect(JSON.parse((await httpsGet(`https://127.0.0.1:${port}/health`)).body)).toEqual({
			ok: true,
			version: "test",
		});
		const login = await httpsGet(loginUrl ?? "");
		expect(login.status).toBe(303);
		const setCookie = String(login.headers["set-cookie"]);
		expect(setCookie).toMatch(
			/^atomic_token=atk_[A-Za-z0-9_-]+; HttpOnly; SameSite=Strict; Path=\/; Max-Age=\d+; Secure$/,
		);
		const secret = /^atomic_token=([^;]+)/.exec(setCookie)?.[1] ?? "";

		const url = `wss://127.0.0.1:${port}/ws`;
		const bearer = await connect(url, { ca: CERT, headers: { authorization: `Bearer ${controller}` } });
		expect(await reply(bearer, { id: "1", type: "attach", sessionId: null })).toMatchObject({ success: true });
		const browser = await connect(url, {
			ca: CERT,
			headers: { cookie: `atomic_token=${secret}`, origin: `https://127.0.0.1:${port}` },
		});
		expect(await reply(browser, { id: "2", type: "attach", sessionId: null })).toMatchObject({ success: true });
		await expect(
			connect(url, { ca: CERT, headers: { cookie: `atomic_token=${secret}`, origin: "https://evil.example" } }),
		).rejects.toThrow("HTTP 403");
	});

	it("speaks only TLS: a client that does not trust the certificate, or plain HTTP, gets nothing", async () => {
		const { port, controller } = await startServer();
		await expect(
			connect(`wss://127.0.0.1:${port}/ws`, { headers: { authorization: `Bearer ${controller}` } }),
		).rejects.toThrow(/certificate/i);
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
		const secure = await startServer({ host: "0.0.0.0" });
		expect(secure.lines.some((line) => line.includes("clear text"))).toBe(false);
		expect(secure.lines).toContain(`atomic serve: wss://0.0.0.0:${secure.port}/ws`);
		expect((await httpsGet(`https://127.0.0.1:${secure.port}/health`)).status).toBe(200);
		const plain = await startServer({ host: "0.0.0.0" }, false);
		expect(plain.lines.some((line) => line.includes("without TLS") && line.includes("clear text"))).toBe(true);
		expect(plain.lines).toContain(`atomic serve: ws://0.0.0.0:${plain.port}/ws`);
	});

	it("refuses to start with a key that is not the certificate's, or credentials that are not PEM", () => {
		const dirs = makeAgentDir({ server: llm });
		cleanups.push(() => dirs.cleanup());
		const make = (cert: string, key: string) => new AtomicServer({ ...serverOptions(dirs, []), tls: { cert, key } });
		expect(() => make(CERT, OTHER_KEY)).toThrow("The TLS key does not match the certificate");
		expect(() => make("not a certificate", KEY)).toThrow("The TLS certificate is not a PEM certificate");
		expect(() => make(CERT, "")).toThrow("The TLS key is not a private key");
		expect(() => make("", "")).toThrow("The TLS certificate is not a PEM certificate");
	});
});

describe("atomic serve --tls-cert --tls-key", () => {
	function run(args: string[]) {
		const dirs = makeAgentDir({ server: llm });
		cleanups.push(() => dirs.cleanup());
		const result = spawnSync(process.execPath, [CLI, "serve", "--port", "0", "--cwd", dirs.work, ...args], {
			env: childEnv(dirs.agentDir, dirs.home),
			encoding: "utf8",
			timeout: 60_000,
		});
		return { status: result.status, stderr: result.stderr, dirs };
	}

	it("takes both files or neither (usage error, exit 2)", () => {
		for (const args of [
			["--tls-cert", CERT_FILE],
			["--tls-key", KEY_FILE],
		]) {
			const result = run(args);
			expect(result.status).toBe(2);
			expect(result.stderr).toContain("--tls-cert and --tls-key go together");
		}
	});

	it("exits 1 with a clear error for a key that does not match, or a file that cannot be read; never serves plain HTTP", () => {
		const dirs = makeAgentDir({ server: llm });
		cleanups.push(() => dirs.cleanup());
		const other = join(dirs.root, "other-key.pem");
		writeFileSync(other, OTHER_KEY);
		const folder = join(dirs.root, "a-folder");
		mkdirSync(folder);
		const cases: [string[], string][] = [
			[["--tls-cert", CERT_FILE, "--tls-key", other], "The TLS key does not match the certificate"],
			[["--tls-cert", CERT_FILE, "--tls-key", join(dirs.root, "missing.pem")], "cannot read --tls-key"],
			[["--tls-cert", folder, "--tls-key", KEY_FILE], "cannot read --tls-cert"],
			[["--tls-cert", KEY_FILE, "--tls-key", KEY_FILE], "The TLS certificate is not a PEM certificate"],
		];
		for (const [args, message] of cases) {
			const result = run(args);
			expect(result.status, result.stderr).toBe(1);
			expect(result.stderr).toContain(message);
			expect(result.stderr).not.toContain("atomic serve: ");
		}
	});

	it("serves wss with the files and prints https and wss addresses; --no-login-url prints no login link", async () => {
		const dirs = makeAgentDir({ server: llm });
		cleanups.push(() => dirs.cleanup());
		const start = async (extra: string[]) => {
			const child = spawn(
				process.execPath,
				[CLI, "serve", "--port", "0", "--cwd", dirs.work, "--tls-cert", CERT_FILE, "--tls-key", KEY_FILE, ...extra],
				{ env: childEnv(dirs.agentDir, dirs.home), stdio: ["ignore", "ignore", "pipe"] },
			);
			cleanups.push(() => {
				child.kill("SIGKILL");
			});
			let stderr = "";
			const port = await new Promise<number>((resolve, reject) => {
				child.stderr.on("data", (chunk: Buffer) => {
					stderr += chunk.toString();
					const found = /atomic serve: wss:\/\/127\.0\.0\.1:(\d+)\/ws\n/.exec(stderr);
					// The login link comes right after that line, when there is one.
					if (found?.[1] && (extra.includes("--no-login-url") || stderr.includes("/login?code="))) {
						resolve(Number(found[1]));
					}
				});
				child.once("exit", (code) => reject(new Error(`exited ${code}: ${stderr}`)));
			});
			expect((await httpsGet(`https://127.0.0.1:${port}/health`)).status).toBe(200);
			const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
			child.kill("SIGTERM");
			expect(await exited).toBe(0);
			return { stderr, port };
		};
		const withLink = await start([]);
		expect(withLink.stderr).toMatch(
			new RegExp(`https://127\\.0\\.0\\.1:${withLink.port}/login\\?code=[A-Za-z0-9_-]{43}`),
		);
		const without = await start(["--no-login-url"]);
		expect(without.stderr).not.toContain("/login");
	});
});
