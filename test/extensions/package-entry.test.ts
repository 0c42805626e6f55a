import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startAgent, stopAgents } from "../rpc/helpers.js";

/**
 * Value imports from "atomic-agent" go through the CLI: the built CLI aliases the name to the
 * built package entry, which is what an installed Atomic gives extensions. (In-process, the alias
 * points at the TypeScript sources, and jiti would transpile the whole SDK for one import.)
 */
describe("an extension's value imports from atomic-agent", () => {
	afterEach(stopAgents);

	it("resolve to the package entry of the running CLI", async () => {
		const { agent, dirs } = await startAgent(undefined, {
			prepare(tree) {
				mkdirSync(join(tree.agentDir, "extensions"), { recursive: true });
				writeFileSync(
					join(tree.agentDir, "extensions", "entry.ts"),
					[
						'import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";',
						'import { calculateCost, AgentSession } from "atomic-agent";',
						"export default function (pi: ExtensionAPI) {",
						'  pi.registerCommand("probe", { description: [typeof calculateCost, typeof AgentSession].join(" "), handler: async () => {} });',
						"}",
					].join("\n"),
				);
			},
		});
		const data = (await agent.ok({ type: "get_commands" })) as { commands: Array<Record<string, unknown>> };
		const probe = data.commands.find((command) => command.name === "probe");
		expect(probe).toMatchObject({
			description: "function function",
			source: "extension",
			path: join(dirs.agentDir, "extensions", "entry.ts"),
		});
		expect(agent.records.filter((record) => record.type === "extension_error")).toEqual([]);
	});
});
