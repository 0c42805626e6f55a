// A 20-token prompt on a warm agent: prompt sent → agent_end. Floor: the mock's own round trip.
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
	],
	warmups: [message, message, message],
	async measure(agent) {
		const { sentAt, end } = await agent.prompt(message);
		return { warmPromptMs: end.time - sentAt };
	},
});
