// One agent process in RPC mode with an isolated config dir, HOME and TMPDIR: spawning, the JSONL
// record log, request/await helpers and memory sampling.
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createJsonlReader } from "./jsonl-reader.mjs";
import { descendants, statusKb, treeRssKb } from "./proc-stats.mjs";

export const settings = { retry: { enabled: true, maxRetries: 3, baseDelayMs: 100, provider: { maxRetries: 0 } } };
const droppedPrefixes = ["PI_", "ATOMIC_", "ANTHROPIC_", "OPENAI_", "GEMINI_", "GOOGLE_", "MOCK_", "CONFORMANCE_"];
const proxyNames = new Set(["http_proxy", "https_proxy", "all_proxy", "no_proxy"]);

export function modelsJson(baseUrl, contextWindow) {
	const models = [
		{
			id: "mock-model",
			name: "Mock Model",
			reasoning: false,
			input: ["text", "image"],
			contextWindow,
			maxTokens: 8192,
		},
	];
	return {
		providers: {
			mock: { baseUrl, api: "anthropic-messages", apiKey: "test-key", models },
			mockoai: { baseUrl: `${baseUrl}/v1`, api: "openai-completions", apiKey: "test-key", models },
		},
	};
}

/** The caller's environment minus anything that could point the agent elsewhere, as the conformance harness does. */
export function isolatedEnv(root, spec, baseUrl) {
	const env = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (droppedPrefixes.some((prefix) => key.startsWith(prefix))) continue;
		if (key.endsWith("_API_KEY") || proxyNames.has(key.toLowerCase())) continue;
		env[key] = value;
	}
	Object.assign(env, {
		HOME: join(root, "home"),
		TMPDIR: join(root, "tmp"),
		NO_COLOR: "1",
		NO_PROXY: "127.0.0.1,localhost",
		no_proxy: "127.0.0.1,localhost",
		// pi's start-up requests (version check, model catalog) go to the internet; this stops them.
		// Atomic makes none; its one start-up connection is the idle preload's, to the model's server
		// (here the mock), which its users get by default, so it is not turned off here.
		PI_OFFLINE: "1",
		PI_SKIP_VERSION_CHECK: "1",
		ATOMIC_SKIP_VERSION_CHECK: "1",
		PI_TELEMETRY: "0",
		ATOMIC_TELEMETRY: "0",
		MOCK_LLM_URL: baseUrl,
		[spec.configEnv]: join(root, "config"),
	});
	if (spec.pathPrefix) env.PATH = `${spec.pathPrefix}:${env.PATH ?? ""}`;
	return env;
}

export class Agent {
	/**
	 * Starts `spec` (see peers.mjs) against the mock at `baseUrl`. `startedAt` (performance.now) is
	 * taken just before the spawn, for the cold-start figure. `configFiles` are extra files for the
	 * config dir (name → JSON content), e.g. `mcp.json`; `mode` is Atomic's `--mode` (default rpc);
	 * `env` is added to the agent's environment and `args` to its command line.
	 */
	static launch(
		spec,
		baseUrl,
		{ contextWindow = 200_000, configFiles = {}, mode = "rpc", env: extraEnv = {}, args: extraArgs = [] } = {},
	) {
		const root = mkdtempSync(join(tmpdir(), `bench-${spec.id}-`));
		for (const dir of ["config", "home", "tmp", "work"]) mkdirSync(join(root, dir));
		writeFileSync(join(root, "config", "models.json"), JSON.stringify(modelsJson(baseUrl, contextWindow), null, 2));
		writeFileSync(join(root, "config", "settings.json"), JSON.stringify(settings, null, 2));
		for (const [name, content] of Object.entries(configFiles))
			writeFileSync(join(root, "config", name), JSON.stringify(content, null, 2));
		const stderrPath = join(root, "stderr.log");
		const stderrFd = openSync(stderrPath, "w");
		const env = { ...isolatedEnv(root, spec, baseUrl), ...extraEnv };
		const args = [
			...spec.args,
			"--mode",
			mode,
			"--provider",
			"mock",
			"--model",
			"mock-model",
			"--no-session",
			...extraArgs,
		];
		const startedAt = performance.now();
		const child = spawn(spec.command, args, {
			cwd: join(root, "work"),
			env,
			stdio: ["pipe", "pipe", stderrFd],
			detached: true,
		});
		closeSync(stderrFd);
		return new Agent(spec, child, root, stderrPath, startedAt);
	}

	constructor(spec, child, root, stderrPath, startedAt) {
		this.spec = spec;
		this.child = child;
		this.root = root;
		this.stderrPath = stderrPath;
		this.startedAt = startedAt;
		this.records = [];
		this.waiters = new Set();
		this.nextId = 0;
		this.exit = undefined;
		this.closed = false;
		this.readRate = 0;
		this.readTimer = undefined;
		this.bytesRead = 0;
		const read = createJsonlReader((record) => this.onRecord(record));
		child.stdout.on("data", (chunk) => {
			this.bytesRead += chunk.length;
			read(chunk);
			this.throttle(chunk.length);
		});
		child.stdin.on("error", (error) => {
			// EPIPE after the agent died; the exit handler reports the death to every waiter.
			this.stdinError = error;
		});
		child.on("exit", (code, signal) => {
			this.exit = { code, signal };
		});
		// "close" comes after the last stdout data, so no record can still be on its way.
		child.on("close", () => {
			this.closed = true;
			const status = this.exit ? (this.exit.code ?? this.exit.signal) : "?";
			for (const waiter of this.waiters)
				waiter.reject(new Error(`${spec.id} exited (${status}): ${this.stderrTail()}`));
		});
		child.on("error", (error) => {
			this.exit = { code: null, signal: null };
			this.closed = true;
			for (const waiter of this.waiters) waiter.reject(new Error(`${spec.id} failed to start: ${error.message}`));
		});
	}

	/**
	 * Reads stdout at most `bytesPerSecond` (0: as fast as it comes): after each chunk, reading
	 * pauses for as long as that chunk takes at this rate, so the pipe fills and the agent's writes wait.
	 */
	setReadRate(bytesPerSecond) {
		this.readRate = bytesPerSecond;
		if (bytesPerSecond === 0 && this.readTimer !== undefined) {
			clearTimeout(this.readTimer);
			this.readTimer = undefined;
			this.child.stdout.resume();
		}
	}

	throttle(bytes) {
		if (this.readRate === 0) return;
		this.child.stdout.pause();
		clearTimeout(this.readTimer);
		this.readTimer = setTimeout(
			() => {
				this.readTimer = undefined;
				if (!this.closed) this.child.stdout.resume();
			},
			(bytes / this.readRate) * 1000,
		);
	}

	onRecord(record) {
		this.records.push(record);
		for (const waiter of this.waiters) {
			if (record.index >= waiter.from && waiter.predicate(record)) waiter.resolve(record);
		}
	}

	/** Index of the next record to arrive. */
	mark() {
		return this.records.length;
	}

	/** Writes one command line; returns performance.now() taken just before the write. */
	send(command) {
		const line = typeof command === "string" ? command : JSON.stringify(command);
		const sentAt = performance.now();
		this.child.stdin.write(`${line}\n`);
		return sentAt;
	}

	/** The first record at index ≥ `from` that satisfies `predicate`. */
	waitFor(predicate, { from = 0, timeoutMs = 30_000, what = "a record" } = {}) {
		for (let index = from; index < this.records.length; index++) {
			const record = this.records[index];
			if (record && predicate(record)) return Promise.resolve(record);
		}
		if (this.closed) return Promise.reject(new Error(`${this.spec.id} has exited: ${this.stderrTail()}`));
		return new Promise((resolve, reject) => {
			const waiter = {
				from,
				predicate,
				resolve: (record) => {
					clearTimeout(timer);
					this.waiters.delete(waiter);
					resolve(record);
				},
				reject: (error) => {
					clearTimeout(timer);
					this.waiters.delete(waiter);
					reject(error);
				},
			};
			const timer = setTimeout(
				() => waiter.reject(new Error(`${this.spec.id}: no ${what} within ${timeoutMs} ms`)),
				timeoutMs,
			);
			this.waiters.add(waiter);
		});
	}

	waitEvent(type, options = {}) {
		return this.waitFor((record) => record.type === type, { what: `${type} event`, ...options });
	}

	/** Sends `command` with a fresh id; resolves with { sentAt, response } once the matching response arrives. */
	async request(command, { timeoutMs = 30_000 } = {}) {
		const id = `bench-${this.nextId++}`;
		const from = this.mark();
		const sentAt = this.send({ ...command, id });
		const response = await this.waitFor((record) => record.type === "response" && record.object?.id === id, {
			from,
			timeoutMs,
			what: `response to ${command.type}`,
		});
		return { sentAt, from, response };
	}

	/** Like `request`, but fails unless the response says success. */
	async ok(command, options) {
		const result = await this.request(command, options);
		const body = result.response.object;
		if (body?.success !== true)
			throw new Error(`${this.spec.id}: ${command.type} failed: ${JSON.stringify(body).slice(0, 300)}`);
		return result;
	}

	/**
	 * Sends a prompt and waits for its agent_end. Atomic and pi 1.6.0 end a prompt's lifecycle with
	 * `agent_settled` just after agent_end; waiting for it keeps the next prompt from finding them busy
	 * and keeps that record out of the next prompt's stdout bytes.
	 */
	async prompt(message, { timeoutMs = 60_000 } = {}) {
		const { sentAt, from, response } = await this.ok({ type: "prompt", message }, { timeoutMs });
		const end = await this.waitEvent("agent_end", { from, timeoutMs });
		const settled = this.spec.settles ? await this.waitEvent("agent_settled", { from: end.index, timeoutMs }) : end;
		return { sentAt, from, response, end, settled };
	}

	/** Resident set size of the agent process itself (VmRSS), in kB. */
	rssKb() {
		return statusKb(this.child.pid, "VmRSS");
	}

	/** Peak resident set size of the agent process itself (VmHWM), in kB. */
	peakRssKb() {
		return statusKb(this.child.pid, "VmHWM");
	}

	treeRssKb() {
		return treeRssKb(this.child.pid);
	}

	stderrTail(limit = 800) {
		try {
			return readFileSync(this.stderrPath, "utf8").slice(-limit).trim();
		} catch (error) {
			return `(stderr unreadable: ${error instanceof Error ? error.message : String(error)})`;
		}
	}

	/**
	 * Closes stdin so the agent can exit on its own (which also lets `--cpu-prof` write its profile),
	 * then kills its process group and any descendants that left it, and removes its temp tree.
	 */
	async close({ graceMs = 1500 } = {}) {
		const pid = this.child.pid;
		if (pid !== undefined) {
			const strays = descendants(pid);
			if (!this.exit) {
				const exited = new Promise((resolve) => this.child.once("exit", resolve));
				this.child.stdin.end();
				let timer;
				const timedOut = new Promise((resolve) => {
					timer = setTimeout(() => resolve("timeout"), graceMs);
				});
				const outcome = await Promise.race([exited, timedOut]);
				clearTimeout(timer);
				if (outcome === "timeout") {
					console.error(`# ${this.spec.id} did not exit within ${graceMs} ms of stdin EOF`);
					killQuietly(-pid);
					await exited;
				}
			}
			// Bash children may outlive the agent, in its process group or outside it.
			killQuietly(-pid);
			for (const stray of strays) killQuietly(stray);
		}
		clearTimeout(this.readTimer);
		this.child.stdin.destroy();
		rmSync(this.root, { recursive: true, force: true });
	}
}

function killQuietly(pid) {
	try {
		process.kill(pid, "SIGKILL");
	} catch (error) {
		// ESRCH: already gone, which is what we wanted.
		if (!(error instanceof Error && "code" in error && error.code === "ESRCH")) throw error;
	}
}
