// Memory over a long conversation: tree RSS of a fresh process once idle after start-up, after 750
// and 1500 prompts, and once idle again after them. The agents run side by side (memory does not
// depend on timing, and 1500 prompts per agent and run take minutes).
import { setTimeout as sleep } from "node:timers/promises";
import { warmAgent } from "./warm.mjs";

const message = "grow [[tokens=20]]";
const HALF = 750;
const LONG = 1500;
/** How long a process is left alone before its idle RSS is read, after start-up and after the session. */
const FRESH_IDLE_MS = 2000;
const LATE_IDLE_MS = 15_000;
const kbPerMb = 1024;

export default {
	id: "long-session",
	parallel: true,
	rows: [
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
			let halfKb = 0;
			for (let count = 1; count <= LONG; count++) {
				await agent.prompt(message);
				if (count === HALF) halfKb = agent.treeRssKb();
			}
			const longKb = agent.treeRssKb();
			await sleep(LATE_IDLE_MS);
			const lateKb = agent.treeRssKb();
			return {
				freshIdleMb: freshKb / kbPerMb,
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
