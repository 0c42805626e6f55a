// Asks the user before the agent runs a dangerous bash command; no answer within 10 s blocks it.
// Run with: atomic --mode rpc -e examples/extensions/confirm-dangerous-bash.ts
// (Outside this repository, import the types from "atomic-agent" or "@mariozechner/pi-coding-agent".)
import type { ExtensionAPI } from "../../src/extensions/index.js";

const DANGEROUS = [
	/\brm\s+(-[a-zA-Z]*r[a-zA-Z]*f|-[a-zA-Z]*f[a-zA-Z]*r)\b/, // rm -rf, rm -fr, rm -Rf ...
	/\bsudo\b/,
	/\bgit\s+push\b.*(--force\b|--force-with-lease\b|\s-f\b)/,
	/\bgit\s+reset\s+--hard\b/,
	/\bmkfs(\.\w+)?\b/,
	/\bdd\s+.*\bof=\/dev\//,
	/\bchmod\s+(-R\s+)?777\b/,
];

export default function (atomic: ExtensionAPI) {
	atomic.on("tool_call", async (event, ctx) => {
		if (event.toolName !== "bash") return;
		const command = event.input.command;
		if (typeof command !== "string" || !DANGEROUS.some((pattern) => pattern.test(command))) return;
		if (!ctx.hasUI) return { block: true, reason: `Dangerous command blocked (no one to ask): ${command}` };
		const choice = await ctx.ui.select("Allow dangerous command?", ["Allow", "Block"], { timeout: 10_000 });
		if (choice === "Allow") return;
		ctx.ui.notify(`Blocked: ${command}`, "warning");
		return { block: true, reason: choice === "Block" ? "Blocked by the user" : "No answer from the user; blocked" };
	});
}
