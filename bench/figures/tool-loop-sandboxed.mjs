// The tool loop of tool-loop.mjs twice per run, on two warm Atomic agents: one with the sandbox off,
// one with `--sandbox workspace-write` (each command in its own bwrap), and their ratio. Atomic only:
// the peers have no sandbox. Without bwrap the figure fails with the reason.
import { spawnSync } from "node:child_process";
import { warmAgent } from "./warm.mjs";

const message = "run it [[tool=echo hi]] [[tokens=5]]";

async function loopMs(agent) {
	const { from, sentAt, end } = await agent.prompt(message);
	const toolEnd = agent.records.slice(from, end.index).find((record) => record.type === "tool_execution_end");
	if (!toolEnd) throw new Error("the prompt ran no tool");
	if (toolEnd.isError) throw new Error(`the command failed: ${JSON.stringify(toolEnd.result).slice(0, 300)}`);
	return end.time - sentAt;
}

export default {
	id: "tool-loop-sandboxed",
	atomicOnly: true,
	rows: [
		{ key: "toolLoopPlainMs", label: "tool loop, sandbox off", unit: "ms" },
		{ key: "toolLoopSandboxedMs", label: "tool loop, sandbox workspace-write (bwrap per command)", unit: "ms" },
		{ key: "sandboxRatio", label: "sandboxed ÷ off", unit: "×", goal: { max: 1.3 } },
	],
	async prepare(spec, context) {
		if (spawnSync("bwrap", ["--version"], { stdio: "ignore" }).status !== 0) {
			throw new Error("bwrap is not on PATH (apt-get install bubblewrap)");
		}
		const plain = await warmAgent(spec, context, [message, message]);
		const sandboxed = await warmAgent(spec, context, [message, message], { args: ["--sandbox", "workspace-write"] });
		return { plain, sandboxed };
	},
	async measure(_spec, _context, { plain, sandboxed }) {
		const toolLoopPlainMs = await loopMs(plain);
		const toolLoopSandboxedMs = await loopMs(sandboxed);
		return { toolLoopPlainMs, toolLoopSandboxedMs, sandboxRatio: toolLoopSandboxedMs / toolLoopPlainMs };
	},
	async finish({ plain, sandboxed }) {
		await Promise.all([plain.close(), sandboxed.close()]);
	},
};
