// A 20-token prompt on a warm agent: prompt sent → agent_end, once after the run's pause (as every
// run starts, bench/settle.mjs) and once more right after it. Floors: the mock's own round trip,
// measured the same two ways.
import { warmFigure } from "./warm.mjs";

const message = "warm [[tokens=20]]";

export default warmFigure({
	id: "warm-prompt",
	rows: [
		{
			key: "warmPromptMs",
			label: "warm 20-token prompt → agent_end",
			unit: "ms",
			floor: "mockRoundTrip",
			goal: { floorTimes: 3 },
		},
		{
			key: "backToBackPromptMs",
			label: "the same, sent as soon as that prompt is over (no pause)",
			unit: "ms",
			floor: "mockRoundTripBackToBack",
			goal: { floorTimes: 3 },
		},
	],
	warmups: [message, message, message],
	async measure(agent) {
		const first = await agent.prompt(message);
		const next = await agent.prompt(message);
		return { warmPromptMs: first.end.time - first.sentAt, backToBackPromptMs: next.end.time - next.sentAt };
	},
});
