// `atomic serve` (docs/server.md): what several clients on one agent feel. Atomic only: the peers
// have no server. Each figure is compared with what one `atomic --mode rpc` client gets in the
// same run.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { cpuMs } from "../proc-cpu.mjs";
import { RawClientGroup, RawServeClient } from "../serve-raw-client.mjs";
import { ServeProcess, updateRate } from "../serve-server.mjs";
import { warmAgent } from "./warm.mjs";

const REPLY = "stream [[tokens=2000]]";
/** A reply at the mock's full speed long enough (10,000 deltas) for a steady rate. */
const FANOUT_REPLY = "stream [[tokens=10000]]";
/** A reply at the pace of a fast model: 500 deltas about 2 ms apart. */
const PACED = "stream [[tokens=500]] [[delay_ms=2]]";
const SHORT = "hi [[tokens=5]]";

/** Sends a prompt from `client` and waits until every one of `clients` has its agent_settled. */
async function promptAll(client, clients, message) {
	const marks = clients.map((each) => each.records.length);
	const { sentAt } = await client.request({ type: "prompt", message });
	const settled = await Promise.all(
		clients.map((each, index) => each.waitFor((record) => record.type === "agent_settled", marks[index])),
	);
	return { sentAt, marks, settled };
}

/** A served session with `count` clients attached (light ones: they parse only responses). */
async function attachedClients(server, count) {
	const clients = [];
	let sessionId = null;
	for (let index = 0; index < count; index++) {
		const client = await server.connect({ light: true });
		const data = await client.attach(sessionId);
		sessionId = data.sessionId;
		clients.push(client);
	}
	return { clients, sessionId };
}

/** The ten clients of serve-fanout, in a process of their own (bench/serve-clients.mjs). */
async function clientsProcess(server, count) {
	const child = spawn(
		process.execPath,
		[fileURLToPath(new URL("../serve-clients.mjs", import.meta.url)), server.url, server.token, String(count)],
		{
			stdio: ["pipe", "pipe", "inherit"],
		},
	);
	const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
	const next = async () => {
		const { value, done } = await lines.next();
		if (done) throw new Error("the clients' process ended");
		return JSON.parse(value);
	};
	await next();
	return {
		async prompt(message) {
			child.stdin.write(`${JSON.stringify({ prompt: message })}\n`);
			return (await next()).rates;
		},
		close() {
			child.stdin.end();
			child.kill();
		},
	};
}

const fanout = {
	id: "serve-fanout",
	group: "serve",
	atomicOnly: true,
	rows: [
		{ key: "stdioRate", label: "message_update/s, one stdio RPC client (10,000-token reply)", unit: "k/s" },
		{ key: "slowestOfTenRate", label: "message_update/s, slowest of ten clients of one served session", unit: "k/s" },
		{ key: "fanoutRatio", label: "slowest of ten served ÷ one stdio", unit: "×", goal: { min: 0.9 } },
		{ key: "stdioCpuMs", label: "CPU time of the agent for that reply, one stdio client", unit: "ms" },
		{ key: "serverCpuMs", label: "CPU time of the server for that reply, ten clients", unit: "ms" },
		{ key: "pacedStdioRate", label: "message_update/s, one stdio client, a reply at a fast model's pace", unit: "k/s" },
		{ key: "pacedSlowestRate", label: "message_update/s, slowest of ten served, the same reply", unit: "k/s" },
		{ key: "pacedRatio", label: "at a fast model's pace: slowest of ten ÷ one stdio", unit: "×", goal: { min: 0.9 } },
	],
	async prepare(spec, context) {
		const stdio = await warmAgent(spec, context, [FANOUT_REPLY, FANOUT_REPLY]);
		const server = await ServeProcess.start(spec, context.baseUrl);
		const clients = await clientsProcess(server, 10);
		for (let warm = 0; warm < 2; warm++) await clients.prompt(FANOUT_REPLY);
		return { stdio, server, clients };
	},
	async measure(_spec, _context, { stdio, server, clients }) {
		const stdioCpuBefore = cpuMs(stdio.child.pid);
		const { from, end } = await stdio.prompt(FANOUT_REPLY);
		const stdioCpuMs = cpuMs(stdio.child.pid) - stdioCpuBefore;
		const stdioRate = updateRate(stdio.records.slice(from, end.index));
		const serverCpuBefore = cpuMs(server.child.pid);
		const slowestOfTenRate = Math.min(...(await clients.prompt(FANOUT_REPLY)));
		const serverCpuMs = cpuMs(server.child.pid) - serverCpuBefore;
		const paced = await stdio.prompt(PACED);
		const pacedStdioRate = updateRate(stdio.records.slice(paced.from, paced.end.index));
		const pacedSlowestRate = Math.min(...(await clients.prompt(PACED)));
		return {
			stdioRate,
			slowestOfTenRate,
			fanoutRatio: slowestOfTenRate / stdioRate,
			stdioCpuMs,
			serverCpuMs,
			pacedStdioRate,
			pacedSlowestRate,
			pacedRatio: pacedSlowestRate / pacedStdioRate,
		};
	},
	async finish({ stdio, server, clients }) {
		clients.close();
		await Promise.all([stdio.close(), server.close()]);
	},
};

const resume = {
	id: "serve-resume",
	group: "serve",
	atomicOnly: true,
	runs: 3,
	rows: [
		{ key: "missedEvents", label: "events missed while away", unit: "" },
		{ key: "resumeMs", label: "attach with afterSeq → last missed event received", unit: "ms", goal: { max: 200 } },
	],
	async prepare(spec, context) {
		const server = await ServeProcess.start(spec, context.baseUrl);
		const { clients, sessionId } = await attachedClients(server, 1);
		await promptAll(clients[0], clients, REPLY);
		return { server, driver: clients[0], sessionId };
	},
	async measure(_spec, _context, { server, driver, sessionId }) {
		const away = await server.connect({ light: true });
		await away.attach(sessionId);
		const seen = driver.lastSeq();
		away.close();
		// 10,000 events and more while it is away: five 2000-token replies.
		for (let prompt = 0; prompt < 5; prompt++) await promptAll(driver, [driver], REPLY);
		const back = await server.connect({ light: true });
		const from = back.records.length;
		const { response, sentAt } = await back.request({ type: "attach", sessionId, afterSeq: seen });
		const last = response.data.seq;
		const arrived = await back.waitFor((record) => record.seq === last, from);
		const missed = back.records.slice(from).filter((record) => typeof record.seq === "number").length;
		back.close();
		if (missed !== last - seen) throw new Error(`replayed ${missed} events, expected ${last - seen}`);
		if (missed < 10_000) throw new Error(`only ${missed} events were missed, fewer than the figure's 10,000`);
		return { missedEvents: missed, resumeMs: arrived.time - sentAt };
	},
	async finish({ server, driver }) {
		driver.close();
		await server.close();
	},
};

const idleMemory = {
	id: "serve-idle-memory",
	group: "serve",
	atomicOnly: true,
	runs: 1,
	rows: [
		{ key: "serverMb", label: "RSS, one server holding 20 idle sessions (one prompt each)", unit: "MB" },
		{ key: "rpcMb", label: "RSS, 20 idle RPC processes (one prompt each)", unit: "MB" },
		{ key: "memoryRatio", label: "server ÷ 20 processes", unit: "×", goal: { max: 1 } },
	],
	async measure(spec, context) {
		const server = await ServeProcess.start(spec, context.baseUrl);
		const agents = [];
		try {
			for (let index = 0; index < 20; index++) {
				const client = await server.connect({ light: true });
				await client.attach(null);
				await promptAll(client, [client], SHORT);
				await client.request({ type: "detach" });
				client.close();
			}
			for (let index = 0; index < 20; index++) agents.push(await warmAgent(spec, context, [SHORT]));
			// Both sides idle for the same while (the idle preload and memory release have run).
			await sleep(3000);
			const serverMb = server.treeRssKb() / 1024;
			const rpcMb = agents.reduce((sum, agent) => sum + agent.treeRssKb(), 0) / 1024;
			return { serverMb, rpcMb, memoryRatio: serverMb / rpcMb };
		} finally {
			await Promise.all([server.close(), ...agents.map((agent) => agent.close())]);
		}
	},
};

/** The measured reply: 8000 deltas, about 1.2 MB of events for each client. */
const LONG_REPLY = "stream [[tokens=8000]]";
/**
 * A reply the slow client falls behind on before the measured one: about 6 MB, more than loopback's
 * socket buffers hold (about 4 MB), so that the server itself holds what the slow client has not read.
 */
const FILL_REPLY = "stream [[tokens=40000]]";
const SLOW_READ_RATE = 100 * 1024;
const MiB = 1024 * 1024;

/**
 * Three fast clients attached to a new session, and with `fourthReadRate` a fourth one reading at
 * that many bytes a second (0: as fast as it comes). The long reply, then the measured one twice:
 * the time from its sending to each fast client's agent_settled, the slowest of them, in the
 * quicker of the two (the machine's other work only ever adds time); the server's CPU time for
 * that one; and how far behind the fourth client was at the end. A new session each time keeps
 * the conversation (and the requests to the model) the same size in every case.
 */
async function fastClients(server, fourthReadRate) {
	const group = await RawClientGroup.attach(server.url, server.token, 3);
	let fourth;
	try {
		if (fourthReadRate !== undefined) {
			fourth = await RawServeClient.connect(server.url, server.token);
			await fourth.request({ type: "attach", sessionId: group.sessionId });
			fourth.setReadRate(fourthReadRate);
		}
		// A fast client that sends nothing (so gets no responses) is sent what the fourth is sent.
		const reference = group.clients[1];
		const sentBefore = reference.bytesRead;
		const readBefore = fourth?.bytesRead ?? 0;
		await group.prompt(FILL_REPLY);
		const measured = [];
		for (let repeat = 0; repeat < 2; repeat++) {
			const cpuBefore = cpuMs(server.child.pid);
			const { sentAt, settledAt } = await group.prompt(LONG_REPLY);
			measured.push({ ms: Math.max(...settledAt) - sentAt, serverCpuMs: cpuMs(server.child.pid) - cpuBefore });
		}
		if (fourth?.closed) throw new Error("the server closed the fourth client");
		const read = fourth === undefined ? 0 : fourth.bytesRead - readBefore;
		const quicker = measured[0].ms <= measured[1].ms ? measured[0] : measured[1];
		return { ...quicker, behindMb: (reference.bytesRead - sentBefore - read) / MiB };
	} finally {
		fourth?.close();
		group.close();
	}
}

const slowClient = {
	id: "serve-slow-client",
	group: "serve",
	atomicOnly: true,
	rows: [
		{ key: "fastAloneMs", label: "three fast clients: prompt → last agent_settled (8000-token reply)", unit: "ms" },
		{ key: "fastBesideFastMs", label: "the same with a fourth client reading as fast as it comes", unit: "ms" },
		{ key: "fastBesideSlowMs", label: "the same with a fourth client reading 100 KB/s", unit: "ms" },
		{ key: "slowClientRatio", label: "beside a slow fourth ÷ beside a fast fourth", unit: "×", goal: { max: 1.1 } },
		{ key: "slowBehindMb", label: "what the slow client had not read when the reply ended", unit: "MB" },
		{ key: "cpuBesideFastMs", label: "CPU time of the server for that reply, beside a fast fourth", unit: "ms" },
		{ key: "cpuBesideSlowMs", label: "CPU time of the server for that reply, beside a slow fourth", unit: "ms" },
	],
	async prepare(spec, context) {
		// Each case's session is unloaded a second after its clients leave, so the server does not grow over the runs.
		const server = await ServeProcess.start(spec, context.baseUrl, { args: ["--idle-unload", "1"] });
		await fastClients(server, 0);
		return server;
	},
	async measure(_spec, _context, server) {
		const alone = await fastClients(server);
		const fast = await fastClients(server, 0);
		const slow = await fastClients(server, SLOW_READ_RATE);
		return {
			fastAloneMs: alone.ms,
			fastBesideFastMs: fast.ms,
			fastBesideSlowMs: slow.ms,
			slowClientRatio: slow.ms / fast.ms,
			slowBehindMb: slow.behindMb,
			cpuBesideFastMs: fast.serverCpuMs,
			cpuBesideSlowMs: slow.serverCpuMs,
		};
	},
	finish: (server) => server.close(),
};

export const serveFigures = [fanout, resume, idleMemory, slowClient];
