// The first prompt of a fresh process after 1 s idle, as in first-prompt.mjs, to a model server
// over TLS with a 20 ms round trip (tls-relay.mjs): what a first prompt to a provider on the
// internet pays for its connection (the TLS handshake, Node's TLS and its CA store). Atomic opens
// that connection while idle (docs/rpc.md "Start-up"); the second row is Atomic with --offline,
// which opens none, for comparison.
import { setTimeout as sleep } from "node:timers/promises";
import { Agent } from "../agent.mjs";
import { startTlsRelay } from "../tls-relay.mjs";

const message = "run it [[tool=echo hi]] [[tokens=5]]";
const IDLE_MS = 1000;
const ONE_WAY_DELAY_MS = 10;

async function idleFirstPrompt(spec, relay, args) {
	const agent = Agent.launch(spec, relay.baseUrl, { env: { NODE_EXTRA_CA_CERTS: relay.caFile }, args });
	try {
		await agent.ok({ type: "get_state" });
		await sleep(IDLE_MS);
		const { from, sentAt, end } = await agent.prompt(message);
		if (!agent.records.slice(from, end.index).some((record) => record.type === "tool_execution_end"))
			throw new Error("the prompt ran no tool");
		return end.time - sentAt;
	} finally {
		await agent.close();
	}
}

export default {
	id: "first-prompt-tls",
	rows: [
		{
			key: "tlsIdleFirstPromptMs",
			label: "first prompt after 1 s idle (tool loop), model server over TLS, 20 ms round trip",
			unit: "ms",
			goal: { peerRatio: 0.8, peer: "pi-1.6.0" },
		},
		{
			key: "tlsOfflineFirstPromptMs",
			label: "the same, Atomic with --offline (no connection opened while idle)",
			unit: "ms",
		},
	],
	prepare: (_spec, context) => startTlsRelay(context.baseUrl, { oneWayDelayMs: ONE_WAY_DELAY_MS }),
	async measure(spec, _context, relay) {
		const result = { tlsIdleFirstPromptMs: await idleFirstPrompt(spec, relay, []) };
		if (spec.kind === "atomic") result.tlsOfflineFirstPromptMs = await idleFirstPrompt(spec, relay, ["--offline"]);
		return result;
	},
	finish: (relay) => relay.stop(),
};
