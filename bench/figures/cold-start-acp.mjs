// Cold start in ACP mode beside RPC mode: each run starts Atomic once with `--mode rpc` and once with
// `--mode acp` (alternating which goes first, so drifting load falls on both) and measures spawn →
// the response to the first request written at once: get_state in RPC mode, initialize in ACP mode.
// The floor is `node -e 0` timed just before each start (the mean of the two).
// Atomic only.
import { nodeStartMs } from "../floors.mjs";

let run = 0;

const initialize = {
	jsonrpc: "2.0",
	id: 1,
	method: "initialize",
	params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } },
};

async function firstResponse(spec, context, mode) {
	const agent = context.launch(spec, { mode });
	try {
		if (mode === "rpc") {
			const { response } = await agent.ok({ type: "get_state" });
			return response.time - agent.startedAt;
		}
		// Written before the agent reads stdin: the pipe holds it until the agent is ready.
		agent.send(initialize);
		const response = await agent.waitFor((record) => record.object?.id === 1 && record.object?.result, {
			what: "initialize response",
		});
		return response.time - agent.startedAt;
	} finally {
		await agent.close();
	}
}

export default {
	id: "cold-start-acp",
	rows: [
		{
			key: "rpcMs",
			label: "cold start → first get_state, --mode rpc (same runs)",
			unit: "ms",
			floorKey: "nodeMs",
			goal: { floorPlus: 20 },
		},
		{
			key: "acpMs",
			label: "cold start → initialize response, --mode acp",
			unit: "ms",
			floorKey: "nodeMs",
			goal: { floorPlus: 50 },
		},
	],
	atomicOnly: true,
	async measure(spec, context) {
		run++;
		const order = run % 2 === 0 ? ["rpc", "acp"] : ["acp", "rpc"];
		const times = {};
		let nodeTotal = 0;
		for (const mode of order) {
			nodeTotal += await nodeStartMs();
			times[mode] = await firstResponse(spec, context, mode);
		}
		return { rpcMs: times.rpc, acpMs: times.acp, nodeMs: nodeTotal / order.length };
	},
};
