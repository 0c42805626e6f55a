// Cold start: spawn → the response to a get_state written at once; peak RSS (VmHWM) at that moment.
// The floor is `node -e 0` timed just before each start of Atomic, so both see the same minute's load.
import { monotonicMicros } from "../clock.mjs";
import { nodeStartMs } from "../floors.mjs";

const kbPerMb = 1024;

export default {
	id: "cold-start",
	rows: [
		{
			key: "coldStartMs",
			label: "cold start → first get_state response",
			unit: "ms",
			floorKey: "nodeMs",
			goal: { floorPlus: 20 },
		},
		{ key: "peakRssMb", label: "peak RSS at that point", unit: "MB", floor: "nodeRss", goal: { max: 60 } },
	],
	async measure(spec, context) {
		const nodeMs = spec.kind === "atomic" ? await nodeStartMs() : undefined;
		const agent = context.launch(spec);
		try {
			// Written before the agent reads stdin: the pipe holds it until the agent is ready.
			const { response } = await agent.ok({ type: "get_state" });
			return {
				coldStartMs: response.time - agent.startedAt,
				nodeMs,
				peakRssMb: agent.peakRssKb() / kbPerMb,
				treeRssMb: agent.treeRssKb() / kbPerMb,
				// For `profile-summary.mjs --window`.
				monotonicMicros: [agent.startedAt, response.time].map(monotonicMicros),
			};
		} finally {
			await agent.close();
		}
	},
};
