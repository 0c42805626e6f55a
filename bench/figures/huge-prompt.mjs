// A 50 MiB prompt line on a freshly warmed agent: line written → agent_end, and the bytes written to
// stdout from the prompt's response to the end of its lifecycle. The seed's event shapes carry the
// prompt three times (message_start, message_end, agent_end): the floor is those three copies.
import { FIFTY_MIB } from "../floors.mjs";
import { warmAgent } from "./warm.mjs";

const filler = "x".repeat(FIFTY_MIB);
const bytesPerMb = 1024 * 1024;

export default {
	id: "huge-prompt",
	rows: [
		{
			key: "hugePromptMs",
			label: "50 MiB prompt line → agent_end",
			unit: "ms",
			floor: "echoFifty",
			goal: { floorTimes: 2 },
		},
		{
			key: "hugeStdoutMb",
			label: "stdout bytes for that prompt",
			unit: "MB",
			floor: "bytesFifty",
			goal: { floorTimes: 1.05 },
		},
	],
	async measure(spec, context) {
		// A fresh agent per run; the huge context window keeps token budgeting from rejecting it.
		const agent = await warmAgent(spec, context, ["warm [[tokens=20]]"], { contextWindow: 1_000_000_000 });
		try {
			const { from, sentAt, end, settled } = await agent.prompt(`HUGE [[tokens=3]] [[usage_in=1000]] ${filler} END`, {
				timeoutMs: 180_000,
			});
			const records = agent.records.slice(from, settled.index + 1);
			return {
				hugePromptMs: end.time - sentAt,
				hugeStdoutMb: records.reduce((sum, record) => sum + record.bytes, 0) / bytesPerMb,
			};
		} finally {
			await agent.close();
		}
	},
};
