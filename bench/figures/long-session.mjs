// Memory over a long conversation: tree RSS of a fresh process once idle after start-up (its
// background preloading done), after 25, 750 and 1500 prompts, and once idle again after them. The
// agents run side by side (memory does not depend on timing, and 1500 prompts per agent and run
// take minutes). The plateau compares 1500 with 750 prompts: V8 grows its young generation and old
// space over the first few hundred prompts, which is not a leak; what keeps growing after 750 is.
import { mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { warmAgent } from "./warm.mjs";

const message = "grow [[tokens=20]]";
const EARLY = 25;
const HALF = 750;
const LONG = 1500;
/** How long a process is left alone before its idle RSS is read, after start-up and after the session. */
const FRESH_IDLE_MS = 2000;
const LATE_IDLE_MS = 15_000;
const kbPerMb = 1024;

/**
 * With `--heap-snapshots`: has Atomic write a heap snapshot (SIGUSR2, see index.mjs) and waits until
 * the file stops growing. Returns its path.
 */
async function heapSnapshot(agent, dir) {
	mkdirSync(dir, { recursive: true });
	const snapshots = () => readdirSync(dir).filter((name) => name.endsWith(".heapsnapshot"));
	const before = new Set(snapshots());
	process.kill(agent.child.pid, "SIGUSR2");
	let file;
	while (!file) {
		await sleep(200);
		file = snapshots().find((name) => !before.has(name));
	}
	const path = join(dir, file);
	let size = -1;
	for (;;) {
		await sleep(500);
		const now = statSync(path).size;
		if (now > 0 && now === size) break;
		size = now;
	}
	console.error(`# long-session: heap snapshot ${path}`);
	return path;
}

export default {
	id: "long-session",
	parallel: true,
	rows: [
		{ key: "freshIdleMb", label: "idle RSS of a fresh process (2 s after its first get_state)", unit: "MB" },
		{ key: "rssEarlyMb", label: `RSS after ${EARLY} prompts`, unit: "MB", floorKey: "freshIdleMb" },
		{ key: "rssHalfMb", label: `RSS after ${HALF} prompts`, unit: "MB", floorKey: "freshIdleMb" },
		{
			key: "rssLongMb",
			label: `RSS after ${LONG} prompts`,
			unit: "MB",
			floorKey: "freshIdleMb",
			goal: { peerRatio: 0.6, peer: "pi-1.6.0" },
		},
		{ key: "plateau", label: `plateau: RSS after ${LONG} prompts ÷ after ${HALF}`, unit: "×", goal: { max: 1.05 } },
		{
			key: "lateIdleMb",
			label: `idle RSS ${LATE_IDLE_MS / 1000} s after those ${LONG} prompts`,
			unit: "MB",
			floorKey: "freshIdleMb",
			goal: { peerRatio: 0.6, peer: "pi-1.6.0" },
		},
		{ key: "idleRatio", label: "that idle RSS ÷ a fresh process's idle RSS", unit: "×", goal: { max: 1.5 } },
	],
	// One long run per agent would do for memory; the issue asks for medians all the same.
	async measure(spec, context) {
		const agent = await warmAgent(spec, context, []);
		try {
			await sleep(FRESH_IDLE_MS);
			const freshKb = agent.treeRssKb();
			const snapshots = context.heapSnapshotDir !== undefined && spec.id === "atomic";
			let earlyKb = 0;
			let halfKb = 0;
			let longKb = 0;
			for (let count = 1; count <= LONG; count++) {
				await agent.prompt(message);
				if (count === EARLY) earlyKb = agent.treeRssKb();
				if (count === LONG) longKb = agent.treeRssKb();
				if (snapshots && (count === EARLY || count === LONG)) await heapSnapshot(agent, context.heapSnapshotDir);
				if (count === HALF) halfKb = agent.treeRssKb();
			}
			await sleep(LATE_IDLE_MS);
			const lateKb = agent.treeRssKb();
			return {
				freshIdleMb: freshKb / kbPerMb,
				rssEarlyMb: earlyKb / kbPerMb,
				rssHalfMb: halfKb / kbPerMb,
				rssLongMb: longKb / kbPerMb,
				plateau: longKb / halfKb,
				lateIdleMb: lateKb / kbPerMb,
				idleRatio: lateKb / freshKb,
			};
		} finally {
			await agent.close();
		}
	},
};
