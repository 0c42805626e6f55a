// A tool loop on a warm agent: the model calls bash `echo hi`, then answers with text.
import { warmFigure } from "./warm.mjs";

const message = "run it [[tool=echo hi]] [[tokens=5]]";

export default warmFigure({
	id: "tool-loop",
	rows: [
		{
			key: "toolLoopMs",
			label: "tool loop (bash `echo hi`, then text) → agent_end",
			unit: "ms",
			floor: "toolLoop",
			goal: { peerRatio: 0.6, peer: "pi-1.6.0" },
		},
	],
	warmups: [message, message],
	async measure(agent) {
		const { from, sentAt, end } = await agent.prompt(message);
		const toolEnd = agent.records.slice(from, end.index).find((record) => record.type === "tool_execution_end");
		if (!toolEnd) throw new Error("the prompt ran no tool");
		return { toolLoopMs: end.time - sentAt };
	},
});
