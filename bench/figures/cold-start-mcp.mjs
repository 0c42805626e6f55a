// Cold start with one stdio MCP server configured (bench/mcp-echo-server.mjs in <agent dir>/mcp.json)
// beside none: each run starts Atomic once without and once with it (alternating which goes first, so
// drifting load falls on both) and measures spawn → the response to a get_state written at once, and
// spawn → the server's mcp_server_update "connected" (its tools on offer). Atomic only.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { nodeStartMs } from "../floors.mjs";

const server = join(dirname(dirname(fileURLToPath(import.meta.url))), "mcp-echo-server.mjs");
const mcp = { mcpServers: { echo: { command: process.execPath, args: [server] } } };
let run = 0;

async function firstState(spec, context, configFiles) {
	const agent = context.launch(spec, { configFiles });
	try {
		const { response } = await agent.ok({ type: "get_state" });
		const result = { coldStartMs: response.time - agent.startedAt };
		if (configFiles["mcp.json"]) {
			const connected = await agent.waitFor(
				(record) => record.type === "mcp_server_update" && record.object?.status === "connected",
				{ what: "mcp_server_update connected" },
			);
			result.connectedMs = connected.time - agent.startedAt;
		}
		return result;
	} finally {
		await agent.close();
	}
}

export default {
	id: "cold-start-mcp",
	rows: [
		{
			key: "noMcpMs",
			label: "cold start → first get_state, no MCP server (same runs)",
			unit: "ms",
			floorKey: "nodeMs",
			goal: { floorPlus: 20 },
		},
		{
			key: "oneMcpMs",
			label: "cold start → first get_state, one stdio MCP server",
			unit: "ms",
			floorKey: "nodeMs",
			goal: { floorPlus: 20 },
		},
		{
			key: "mcpConnectedMs",
			label: "cold start → that MCP server connected",
			unit: "ms",
			floorKey: "nodeMs",
			goal: { max: 1500 },
		},
	],
	atomicOnly: true,
	async measure(spec, context) {
		run++;
		const order = run % 2 === 0 ? [{}, { "mcp.json": mcp }] : [{ "mcp.json": mcp }, {}];
		const results = [];
		let nodeTotal = 0;
		for (const configFiles of order) {
			nodeTotal += await nodeStartMs();
			results.push(await firstState(spec, context, configFiles));
		}
		const [without, withMcp] = run % 2 === 0 ? results : [results[1], results[0]];
		return {
			noMcpMs: without.coldStartMs,
			oneMcpMs: withMcp.coldStartMs,
			mcpConnectedMs: withMcp.connectedMs,
			nodeMs: nodeTotal / order.length,
		};
	},
};
