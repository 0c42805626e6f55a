// The floors printed beside the figures: what the same work costs without any agent, measured in
// the same run on the same machine. Each floor is measured once per bench run (only when a selected
// figure refers to it) and its median is printed in the table's floor column and under the table.
import { spawn } from "node:child_process";
import { request } from "node:http";
import { performance } from "node:perf_hooks";
import { mockDeltaRate } from "./mock.mjs";
import { statusKb } from "./proc-stats.mjs";
import { median } from "./report.mjs";
import { settle } from "./settle.mjs";

/** One streamed Anthropic reply over node:http (keep-alive), read to its end; resolves with the body text. */
function postMessages(baseUrl, body, agent) {
	return new Promise((resolve, reject) => {
		const text = JSON.stringify({ model: "mock-model", max_tokens: 8192, stream: true, ...body });
		const req = request(
			`${baseUrl}/v1/messages`,
			{
				method: "POST",
				agent,
				headers: { "content-type": "application/json", "content-length": Buffer.byteLength(text) },
			},
			(response) => {
				let received = "";
				response.setEncoding("utf8");
				response.on("data", (chunk) => {
					received += chunk;
				});
				response.on("end", () =>
					response.statusCode === 200 ? resolve(received) : reject(new Error(`mock answered ${response.statusCode}`)),
				);
			},
		);
		req.on("error", reject);
		req.end(text);
	});
}

/** Runs `bash -c command` and reads its whole stdout; resolves with the number of bytes read. */
export function spawnAndRead(command) {
	return new Promise((resolve, reject) => {
		const child = spawn("/bin/bash", ["-c", command], { stdio: ["ignore", "pipe", "pipe"] });
		let bytes = 0;
		child.stdout.on("data", (chunk) => {
			bytes += chunk.length;
		});
		child.stderr.resume();
		child.on("error", reject);
		child.on("close", () => resolve(bytes));
	});
}

/** Spawn → exit of `node -e 0`: the cold-start figures time one just before each start of Atomic. */
export function nodeStartMs() {
	return timeNode(["-e", "0"]);
}

function timeNode(args) {
	return new Promise((resolve, reject) => {
		const startedAt = performance.now();
		const child = spawn(process.execPath, args, { stdio: "ignore" });
		child.on("error", reject);
		child.on("exit", () => resolve(performance.now() - startedAt));
	});
}

/** Peak RSS of a bare Node process that has started and waits on stdin. */
function bareNodeRssMb() {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, ["-e", "process.stdout.write('x'); process.stdin.resume()"], {
			stdio: ["pipe", "pipe", "ignore"],
		});
		child.on("error", reject);
		child.stdout.once("data", () => {
			const kb = statusKb(child.pid, "VmHWM");
			child.kill("SIGKILL");
			resolve(kb / 1024);
		});
	});
}

const toolOffer = [{ name: "bash", description: "Run a command", input_schema: { type: "object" } }];

/**
 * A tool loop as a bare client does it: the mock's tool call, `bash -c 'echo hi'`, the mock's text
 * reply to the tool result. What the tool-loop figure costs without an agent.
 */
async function bareToolLoopMs(baseUrl, agent) {
	const startedAt = performance.now();
	const user = { role: "user", content: "run it [[tool=echo hi]] [[tokens=5]]" };
	const first = await postMessages(baseUrl, { messages: [user], tools: toolOffer }, agent);
	const id = /"id":"(toolu_[^"]+)"/.exec(first)?.[1];
	if (!id) throw new Error("the mock did not call the tool");
	await spawnAndRead("echo hi");
	const messages = [
		user,
		{ role: "assistant", content: [{ type: "tool_use", id, name: "bash", input: { command: "echo hi" } }] },
		{ role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "hi" }] },
	];
	await postMessages(baseUrl, { messages, tools: toolOffer }, agent);
	return performance.now() - startedAt;
}

/** One 20-token reply from the mock to a bare node:http client, request to end of stream. */
async function mockRoundTripMs({ baseUrl, httpAgent }) {
	const startedAt = performance.now();
	await postMessages(baseUrl, { messages: [{ role: "user", content: "baseline [[tokens=20]]" }] }, httpAgent);
	return performance.now() - startedAt;
}

/**
 * `runs` timed runs after `warmups` untimed ones, each from the same quiet as an agent's run
 * (settle.mjs; back to back, the machine is faster), or back to back with `{ settled: false }`.
 */
async function repeat(runs, warmups, measure, { settled = true } = {}) {
	for (let run = 0; run < warmups; run++) await measure();
	const values = [];
	for (let run = 0; run < runs; run++) {
		if (settled) await settle();
		values.push(await measure());
	}
	return { median: median(values), runs: values };
}

/** How long a bare Node process takes to read, parse and echo a `bytes`-byte prompt line three times. */
function bareEchoMs(bytes) {
	const script = [
		"let parts = [];",
		"process.stdin.on('data', (c) => { parts.push(c); const i = c.indexOf(10); if (i < 0) return;",
		"  const message = JSON.parse(Buffer.concat(parts).toString('utf8')).message;",
		"  const record = JSON.stringify({ type: 'message', message: { role: 'user', content: [{ type: 'text', text: message }] } }) + '\\n';",
		"  process.stdout.write(record); process.stdout.write(record); process.stdout.write(record, () => process.exit(0)); });",
	].join("\n");
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, ["-e", script], { stdio: ["pipe", "pipe", "ignore"] });
		child.on("error", reject);
		const line = `${JSON.stringify({ type: "prompt", message: "x".repeat(bytes) })}\n`;
		let received = 0;
		let startedAt = 0;
		child.stdout.on("data", (chunk) => {
			received += chunk.length;
		});
		child.on("close", () => {
			if (received < 3 * bytes) reject(new Error(`bare echo wrote ${received} bytes`));
			else resolve(performance.now() - startedAt);
		});
		// Started once the child runs: its start-up is not part of the floor.
		setTimeout(() => {
			startedAt = performance.now();
			child.stdin.end(line);
		}, 300);
	});
}

export const FIFTY_MIB = 50 * 1024 * 1024;

/** Every floor, by id: label, unit and how to measure it (`runs` is the bench's --runs). */
export const floors = {
	node: {
		label: "`node -e 0`, spawn → exit",
		unit: "ms",
		measure: (_context, runs) => repeat(Math.max(runs, 9), 2, () => timeNode(["-e", "0"])),
	},
	nodeRss: {
		label: "bare Node process, peak RSS",
		unit: "MB",
		measure: (_context, runs) => repeat(runs, 0, bareNodeRssMb),
	},
	mockRoundTrip: {
		label: "mock alone, 20-token reply round trip (bare node:http client)",
		unit: "ms",
		measure: (context, runs) => repeat(Math.max(runs, 9), 3, () => mockRoundTripMs(context)),
	},
	mockRoundTripBackToBack: {
		label: "the same, back to back (no pause before each run)",
		unit: "ms",
		measure: (context, runs) => repeat(Math.max(runs, 9), 3, () => mockRoundTripMs(context), { settled: false }),
	},
	mockDeltaRate: {
		label: "mock alone, text deltas per second (2000-token reply)",
		unit: "k/s",
		measure: (context, runs) => repeat(Math.max(runs, 5), 2, () => mockDeltaRate(context.baseUrl, 2000)),
	},
	toolLoop: {
		label: "bare client: mock tool call, `bash -c 'echo hi'`, mock reply",
		unit: "ms",
		measure: (context, runs) => repeat(Math.max(runs, 9), 2, () => bareToolLoopMs(context.baseUrl, context.httpAgent)),
	},
	coldToolLoop: {
		label: "`node -e 0` + the bare tool loop",
		unit: "ms",
		derive: (values) => values.node + values.toolLoop,
		needs: ["node", "toolLoop"],
	},
	spawnSeq: {
		label: "bare spawn + read of `bash -c 'seq 1 200000'`",
		unit: "ms",
		measure: (_context, runs) =>
			repeat(Math.max(runs, 9), 2, async () => {
				const startedAt = performance.now();
				await spawnAndRead("seq 1 200000");
				return performance.now() - startedAt;
			}),
	},
	echoFifty: {
		label: "bare Node: read, parse and write back three times a 50 MiB prompt line",
		unit: "ms",
		measure: (_context, runs) => repeat(runs, 0, () => bareEchoMs(FIFTY_MIB)),
	},
	bytesFifty: {
		label: "the 50 MiB prompt three times (message_start, message_end, agent_end)",
		unit: "MB",
		derive: () => (3 * FIFTY_MIB) / 1024 / 1024,
		needs: [],
	},
};

/** Measures the floors `ids` refer to (and those they derive from); resolves with { id: { median, runs } }. */
export async function measureFloors(ids, context, runs) {
	const wanted = new Set();
	const add = (id) => {
		const floor = floors[id];
		if (!floor) throw new Error(`unknown floor ${id}`);
		for (const need of floor.needs ?? []) add(need);
		wanted.add(id);
	};
	for (const id of ids) add(id);
	const results = {};
	for (const id of wanted) {
		const floor = floors[id];
		if (floor.derive) continue;
		console.error(`# floor ${id}…`);
		results[id] = await floor.measure(context, runs);
	}
	for (const id of wanted) {
		const floor = floors[id];
		if (!floor.derive) continue;
		const values = Object.fromEntries(Object.entries(results).map(([key, value]) => [key, value.median]));
		results[id] = { median: floor.derive(values) };
	}
	return results;
}
