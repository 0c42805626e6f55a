// A 5 MiB prompt line on a freshly warmed agent: line written → the prompt's response (and agent_end).
import { monotonicMicros } from "../clock.mjs";
import { warmAgent } from "./warm.mjs";

const filler = "x".repeat(5 * 1024 * 1024);

export default {
	id: "big-prompt",
	rows: [{ key: "bigPromptMs", label: "5 MiB prompt line → response", unit: "ms", goal: { max: 40 } }],
	async measure(spec, context) {
		// A fresh agent per run, so earlier big prompts do not weigh on the context. The huge context
		// window keeps token budgeting from rejecting the record, as in the conformance check.
		const agent = await warmAgent(spec, context, ["warm [[tokens=20]]"], { contextWindow: 100_000_000 });
		try {
			const { sentAt, response, end } = await agent.prompt(`BIG [[tokens=3]] [[usage_in=1000]] ${filler} END`);
			return {
				bigPromptMs: response.time - sentAt,
				bigPromptAgentEndMs: end.time - sentAt,
				// For `profile-summary.mjs --window`: line written, response read, agent_end read.
				monotonicMicros: [sentAt, response.time, end.time].map(monotonicMicros),
			};
		} finally {
			await agent.close();
		}
	},
};
