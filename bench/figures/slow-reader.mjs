// A noisy command while the client reads stdout slowly: peak RSS of the agent process while the
// client reads at 1 MB/s during `yes | head -c 500M`, run by the model through the bash tool and by
// the client through the RPC `bash` command. Each case gets a fresh, warmed agent; its idle RSS just
// before the command is the floor (the goal is under twice that). Delivering 500 MB of deltas at
// 1 MB/s would take minutes, so RSS is sampled for a window of WINDOW_MS (or until the prompt
// ends), then the agent is stopped.
import { setTimeout as sleep } from "node:timers/promises";
import { warmAgent } from "./warm.mjs";

const command = "yes | head -c 500M";
const READ_RATE = 1024 * 1024;
const WINDOW_MS = 10_000;
const SAMPLE_MS = 20;
/** An agent that buffers without bound is stopped here rather than left to exhaust the machine. */
const STOP_ABOVE_KB = 4 * 1024 * 1024;
const kbPerMb = 1024;

/** Samples the agent's RSS until `done` settles, the window closes or the RSS passes the stop line. */
async function peakWhile(agent, done) {
	let finished = false;
	void done.then(
		() => {
			finished = true;
		},
		() => {
			finished = true;
		},
	);
	const startedAt = performance.now();
	let peakKb = agent.rssKb();
	while (!finished && performance.now() - startedAt < WINDOW_MS && peakKb < STOP_ABOVE_KB) {
		await sleep(SAMPLE_MS);
		peakKb = Math.max(peakKb, agent.rssKb());
	}
	return { peakKb, finished, seconds: (performance.now() - startedAt) / 1000 };
}

async function measureCase(spec, context, start) {
	const agent = await warmAgent(spec, context, ["warm [[tokens=20]]"]);
	try {
		await sleep(1000);
		const idleKb = agent.rssKb();
		agent.setReadRate(READ_RATE);
		const readBefore = agent.bytesRead;
		const result = await peakWhile(agent, start(agent));
		return {
			idleMb: idleKb / kbPerMb,
			peakMb: result.peakKb / kbPerMb,
			finished: result.finished,
			readMb: (agent.bytesRead - readBefore) / kbPerMb / 1024,
			seconds: result.seconds,
		};
	} finally {
		await agent.close();
	}
}

export default {
	id: "slow-reader",
	rows: [
		{
			key: "toolPeakMb",
			label: "peak RSS, stdout read at 1 MB/s, `yes | head -c 500M` via the bash tool",
			unit: "MB",
			floorKey: "toolIdleMb",
			goal: { floorTimes: 2 },
		},
		{
			key: "bashPeakMb",
			label: "peak RSS, stdout read at 1 MB/s, `yes | head -c 500M` via RPC bash",
			unit: "MB",
			floorKey: "bashIdleMb",
			goal: { floorTimes: 2 },
		},
	],
	async measure(spec, context) {
		const tool = await measureCase(spec, context, (agent) =>
			agent.prompt(`noisy [[tool=${command}]] [[tokens=5]]`, { timeoutMs: WINDOW_MS * 3 }),
		);
		const bash = await measureCase(spec, context, (agent) =>
			agent.request({ type: "bash", command }, { timeoutMs: WINDOW_MS * 3 }),
		);
		return {
			toolIdleMb: tool.idleMb,
			toolPeakMb: tool.peakMb,
			toolFinished: tool.finished,
			toolReadMb: tool.readMb,
			bashIdleMb: bash.idleMb,
			bashPeakMb: bash.peakMb,
			bashReadMb: bash.readMb,
		};
	},
};
