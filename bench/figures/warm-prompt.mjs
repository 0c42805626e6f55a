// A 20-token prompt on a warm agent: prompt sent → agent_end.
import { mockRoundTripMs } from "../mock.mjs";
import { median } from "../report.mjs";
import { warmFigure } from "./warm.mjs";

const message = "warm [[tokens=20]]";

const figure = warmFigure({
	id: "warm-prompt",
	rows: [{ key: "warmPromptMs", label: "warm 20-token prompt → agent_end", unit: "ms", goal: { max: 5 } }],
	warmups: [message, message, message],
	async measure(agent) {
		const { sentAt, end } = await agent.prompt(message);
		return { warmPromptMs: end.time - sentAt };
	},
});

export default {
	...figure,
	/** The mock's own round trip for the same reply: the floor for this row. */
	async baseline(context, runs) {
		for (let run = 0; run < 3; run++) await mockRoundTripMs(context.baseUrl, 20);
		const times = [];
		for (let run = 0; run < Math.max(runs, 9); run++) times.push(await mockRoundTripMs(context.baseUrl, 20));
		return {
			label: "mock alone, 20-token reply round trip (bare fetch)",
			unit: "ms",
			median: median(times),
			runs: times,
		};
	},
};
