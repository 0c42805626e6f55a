// The first prompt of a fresh process, a tool loop (bash `echo hi`, then text), in three ways, each
// in its own new process: written at spawn (what an orchestrator that spawns one agent per task
// feels: cold start + first prompt), sent as soon as the first get_state is answered, and sent once
// the process has been idle for a second after that (start-up work done in the background is then
// over). The last process runs three more prompts: its warm tool loop is the reference.
import { setTimeout as sleep } from "node:timers/promises";

const message = "run it [[tool=echo hi]] [[tokens=5]]";
const IDLE_MS = 1000;

function ranTool(agent, from, end) {
	if (!agent.records.slice(from, end.index).some((record) => record.type === "tool_execution_end"))
		throw new Error("the prompt ran no tool");
}

async function withAgent(spec, context, work) {
	const agent = context.launch(spec);
	try {
		return await work(agent);
	} finally {
		await agent.close();
	}
}

export default {
	id: "first-prompt",
	rows: [
		{
			key: "coldFirstPromptMs",
			label: "cold start + first prompt (tool loop): spawn → agent_end",
			unit: "ms",
			floor: "coldToolLoop",
			goal: { peerRatio: 0.8, peer: "pi-1.6.0" },
		},
		{
			key: "firstPromptMs",
			label: "first prompt of a fresh process (tool loop), sent at the get_state response",
			unit: "ms",
			floor: "toolLoop",
			goal: { peerRatio: 0.8, peer: "pi-1.6.0" },
		},
		{
			key: "idleFirstPromptMs",
			label: "first prompt of a fresh process (tool loop), sent after 1 s idle",
			unit: "ms",
			floor: "toolLoop",
			goal: { peerRatio: 0.8, peer: "pi-1.6.0" },
		},
		{
			key: "idleFirstToWarm",
			label: "that first prompt ÷ the same process's warm tool loop",
			unit: "×",
			goal: { max: 1.5 },
		},
	],
	async measure(spec, context) {
		const coldFirstPromptMs = await withAgent(spec, context, async (agent) => {
			const { from, end } = await agent.prompt(message);
			ranTool(agent, from, end);
			return end.time - agent.startedAt;
		});
		const firstPromptMs = await withAgent(spec, context, async (agent) => {
			await agent.ok({ type: "get_state" });
			const { from, sentAt, end } = await agent.prompt(message);
			ranTool(agent, from, end);
			return end.time - sentAt;
		});
		const idle = await withAgent(spec, context, async (agent) => {
			await agent.ok({ type: "get_state" });
			await sleep(IDLE_MS);
			const first = await agent.prompt(message);
			ranTool(agent, first.from, first.end);
			let warm = first;
			for (let count = 0; count < 3; count++) warm = await agent.prompt(message);
			ranTool(agent, warm.from, warm.end);
			return { first: first.end.time - first.sentAt, warm: warm.end.time - warm.sentAt };
		});
		return {
			coldFirstPromptMs,
			firstPromptMs,
			idleFirstPromptMs: idle.first,
			warmToolLoopMs: idle.warm,
			idleFirstToWarm: idle.first / idle.warm,
		};
	},
};
