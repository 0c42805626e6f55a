// One 2000-token reply, one token per delta: stdout volume and message_update throughput.
import { warmFigure } from "./warm.mjs";

const message = "stream [[tokens=2000]]";

const figure = warmFigure({
	id: "stream-reply",
	rows: [
		{ key: "stdoutMb", label: "stdout bytes for one 2000-token reply", unit: "MB", goal: { max: 0.5 } },
		{
			key: "updatesPerSecond",
			label: "message_update events per second (2000-token reply)",
			unit: "k/s",
			floor: "mockDeltaRate",
			goal: { min: 30 },
		},
	],
	warmups: [message],
	async measure(agent) {
		const { from, end } = await agent.prompt(message);
		// Everything the prompt produced on stdout, from its response through agent_end.
		const records = agent.records.slice(from, end.index + 1);
		const updates = records.filter((record) => record.type === "message_update");
		const first = updates[0];
		const last = updates[updates.length - 1];
		if (!first || !last || last.time <= first.time)
			throw new Error(`too few message_update events (${updates.length})`);
		return {
			stdoutMb: records.reduce((sum, record) => sum + record.bytes, 0) / 1024 / 1024,
			updatesPerSecond: updates.length / (last.time - first.time),
			updates: updates.length,
		};
	},
});

export default figure;
