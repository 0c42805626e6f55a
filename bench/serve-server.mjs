// `atomic serve` for the bench: one server process with an isolated config dir (the mock model,
// as bench/agent.mjs sets up for RPC mode), a controller token, and WebSocket clients that note
// when each record arrives.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import WebSocket from "ws";
import { isolatedEnv, modelsJson, settings } from "./agent.mjs";
import { treeRssKb } from "./proc-stats.mjs";
import { awaitRecord } from "./serve-raw-client.mjs";

export class ServeProcess {
	/**
	 * Starts `atomic serve` for `spec` (Atomic) against the mock; resolves once it listens. `args` are
	 * added to its command line (e.g. `--idle-unload 1`).
	 */
	static async start(spec, baseUrl, { args = [] } = {}) {
		const root = mkdtempSync(join(tmpdir(), "bench-serve-"));
		for (const dir of ["config", "home", "tmp", "work"]) mkdirSync(join(root, dir));
		writeFileSync(join(root, "config", "models.json"), JSON.stringify(modelsJson(baseUrl, 200_000), null, 2));
		writeFileSync(join(root, "config", "settings.json"), JSON.stringify(settings, null, 2));
		const env = isolatedEnv(root, spec, baseUrl);
		const made = spawnSync(spec.command, [...spec.args, "token", "create", "--role", "controller", "--name", "bench"], {
			env,
			encoding: "utf8",
		});
		const token = /atk_\S+/.exec(made.stdout)?.[0];
		if (!token) throw new Error(`token create failed: ${made.stderr || made.stdout}`);
		const child = spawn(
			spec.command,
			[
				...(process.env.SERVE_NODE_ARGS ? process.env.SERVE_NODE_ARGS.split(" ") : []),
				...spec.args,
				"serve",
				"--port",
				"0",
				"--no-login-url",
				"--provider",
				"mock",
				"--model",
				"mock-model",
				"--no-session",
				...args,
			],
			{ cwd: join(root, "work"), env, stdio: ["ignore", "ignore", "pipe"] },
		);
		let stderr = "";
		const url = await new Promise((resolve, reject) => {
			child.stderr.on("data", (chunk) => {
				stderr += chunk.toString();
				const found = /atomic serve: (ws:\/\/\S+)/.exec(stderr);
				if (found) resolve(found[1]);
			});
			child.once("exit", (code) => reject(new Error(`atomic serve exited (${code}): ${stderr.slice(-500)}`)));
		});
		return new ServeProcess(child, root, url, token);
	}

	constructor(child, root, url, token) {
		this.child = child;
		this.root = root;
		this.url = url;
		this.token = token;
	}

	/** A new client, connected (its `ready` received). */
	connect(options) {
		return ServeClient.connect(this.url, this.token, options);
	}

	treeRssKb() {
		return treeRssKb(this.child.pid);
	}

	async close() {
		const exited = new Promise((resolve) => this.child.once("exit", resolve));
		this.child.kill("SIGTERM");
		const timer = setTimeout(() => this.child.kill("SIGKILL"), 5000);
		await exited;
		clearTimeout(timer);
		rmSync(this.root, { recursive: true, force: true });
	}
}

/**
 * One WebSocket client. By default it parses every record; with `light`, it parses only responses
 * and notes the events' arrival (a receiving side that parses everything ten times over measures
 * itself more than the server).
 */
export class ServeClient {
	static connect(url, token, { light = false } = {}) {
		const socket = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
		const client = new ServeClient(socket, light);
		return new Promise((resolve, reject) => {
			socket.once("error", reject);
			client.waitFor((record) => record.type === "ready").then(() => resolve(client), reject);
		});
	}

	constructor(socket, light) {
		this.socket = socket;
		this.light = light;
		/** Every record, or in light mode `{type, seq?, time}` for events. */
		this.records = [];
		this.waiters = new Set();
		this.counter = 0;
		socket.on("message", (data) => this.onText(String(data)));
		socket.on("close", () => {
			for (const waiter of this.waiters) waiter.reject(new Error("the connection closed"));
			this.waiters.clear();
		});
	}

	onText(text) {
		const time = performance.now();
		let record;
		if (this.light && !text.startsWith('{"type":"response"') && !text.includes('"type":"response"')) {
			const type = /^\{"type":"([a-z_]+)"/.exec(text)?.[1] ?? "?";
			const seq = /"seq":(\d+)\}$/.exec(text)?.[1];
			record = { type, seq: seq === undefined ? undefined : Number(seq), time };
		} else {
			record = { ...JSON.parse(text), time };
		}
		this.records.push(record);
		for (const waiter of [...this.waiters]) {
			if (waiter.predicate(record)) {
				this.waiters.delete(waiter);
				waiter.resolve(record);
			}
		}
	}

	waitFor(predicate, from = 0, timeoutMs = 60_000) {
		const found = this.records.slice(from).find(predicate);
		if (found) return Promise.resolve(found);
		return awaitRecord(this.waiters, predicate, timeoutMs);
	}

	send(command) {
		const sentAt = performance.now();
		this.socket.send(JSON.stringify(command));
		return sentAt;
	}

	/** Sends a command and resolves with its successful response (and when it was sent). */
	async request(command) {
		const id = `b${++this.counter}`;
		const from = this.records.length;
		const sentAt = this.send({ ...command, id });
		const response = await this.waitFor((record) => record.type === "response" && record.id === id, from);
		if (!response.success) throw new Error(`${command.type} failed: ${response.error}`);
		return { response, sentAt, from };
	}

	async attach(sessionId, afterSeq) {
		const command = { type: "attach", sessionId };
		if (afterSeq !== undefined) command.afterSeq = afterSeq;
		return (await this.request(command)).response.data;
	}

	/** The seq of the last event received (0 before any). */
	lastSeq() {
		for (let index = this.records.length - 1; index >= 0; index--) {
			const seq = this.records[index].seq;
			if (typeof seq === "number") return seq;
		}
		return 0;
	}

	close() {
		this.socket.terminate();
	}
}

/** message_update events per ms, from counted ones: `{count, first, last}` (bench/serve-raw-client.mjs). */
export function countedRate({ count, first, last }) {
	if (count < 2 || first === undefined || last <= first) throw new Error(`too few message_update events (${count})`);
	return count / (last - first);
}

/** message_update events per ms among `records` (with `time`), from the first of them to the last. */
export function updateRate(records) {
	const updates = records.filter((record) => record.type === "message_update");
	return countedRate({ count: updates.length, first: updates[0]?.time, last: updates.at(-1)?.time });
}
