// The `bash` RPC command with a large output (the agent truncates it): sent → response.
import { monotonicMicros } from "../clock.mjs";
import { warmAgent } from "./warm.mjs";

const command = "seq 1 200000";

async function runBash(agent) {
	const { sentAt, response } = await agent.ok({ type: "bash", command });
	const output = response.object?.data?.output;
	if (typeof output !== "string" || !output.trimEnd().endsWith("200000")) throw new Error("unexpected bash output");
	// The window is for `profile-summary.mjs --window`.
	return { directBashMs: response.time - sentAt, monotonicMicros: [sentAt, response.time].map(monotonicMicros) };
}

export default {
	id: "direct-bash",
	rows: [
		{
			key: "directBashMs",
			label: "direct bash `seq 1 200000` → response",
			unit: "ms",
			floor: "spawnSeq",
			goal: { peerRatio: 0.8, peer: "pi-1.6.0" },
		},
	],
	async prepare(spec, context) {
		const agent = await warmAgent(spec, context, ["warm [[tokens=20]]"]);
		await runBash(agent);
		return agent;
	},
	async measure(_spec, _context, agent) {
		return runBash(agent);
	},
	finish: (agent) => agent.close(),
};
