import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textReply, toolReply } from "../support/llm-server.js";
import { expectExitOnEof, expectResponsive } from "../support/responsive.js";
import { testProviders } from "../support/rpc-process.js";
import { startWithExtensions, writeFile } from "./extensions-helpers.js";
import { useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

/** Variables Atomic reads credentials from, and others it must leave alone. */
const ENV = {
	OPENAI_API_KEY: "sk-openai-secret",
	GEMINI_API_KEY: "gemini-secret",
	MY_PROXY_TOKEN: "proxy-secret",
	ORG_SECRET: "org-secret",
	USER_LABEL: "alice",
	GITHUB_TOKEN: "gh-kept",
};
const NAMES = Object.keys(ENV);
/** Prints NAME=value (or NAME=unset) for each variable, one per line. */
const PRINT = `for v in ${NAMES.join(" ")}; do echo "$v=\${!v-unset}"; done`;
const EXTENSION =
	'export default function (atomic) {\n\tatomic.registerCommand("env", {\n\t\thandler: async (_args, ctx) => {\n' +
	`\t\t\tconst result = await atomic.exec("bash", ["-c", ${JSON.stringify(PRINT)}]);\n` +
	"\t\t\tctx.ui.notify(result.stdout.trim());\n\t\t},\n\t});\n}\n";

/** The mock provider reads its key from $MY_PROXY_TOKEN and sends two headers built from variables. */
function providers(): Record<string, unknown> {
	const standard = testProviders(harness.server) as Record<string, Record<string, unknown>>;
	return {
		...standard,
		mock: {
			...standard.mock,
			apiKey: "$MY_PROXY_TOKEN",
			headers: { "x-org": `\${ORG_SECRET}`, "x-user": "$USER_LABEL" },
		},
	};
}

function lines(text: string): string[] {
	return text.trim().split("\n");
}

async function environments(settings: Record<string, unknown> = {}, projectSettings?: Record<string, unknown>) {
	const { agent } = await startWithExtensions(harness.server, {
		env: ENV,
		providers: providers(),
		settings,
		prepare: (dirs) => {
			if (projectSettings) writeFile(join(dirs.work, ".atomic", "settings.json"), JSON.stringify(projectSettings));
		},
		sources: { "env.ts": EXTENSION },
		args: ["--model", "mock/mock-model"],
	});
	const rpc = (await agent.ok({ type: "bash", command: PRINT })) as { output: string };
	harness.server.enqueue(toolReply("bash", { command: PRINT }), textReply("done"));
	const { start } = await agent.prompt("print the environment");
	const end = await agent.waitForEvent("tool_execution_end", () => true, start);
	const tool = (end.result as { content: { text: string }[] }).content[0]?.text ?? "";
	const notified = agent.waitForEvent("extension_ui_request", (record) => record.method === "notify");
	await agent.ok({ type: "prompt", message: "/env" });
	const exec = String((await notified).message);
	// The key and the header still reached the provider.
	const request = harness.server.requests[0];
	expect(request?.headers["x-api-key"]).toBe("proxy-secret");
	expect(request?.headers["x-org"]).toBe("org-secret");
	await expectResponsive(agent);
	await expectExitOnEof(agent);
	return { rpc: lines(rpc.output), tool: lines(tool), exec: lines(exec) };
}

describe("the environment of commands", () => {
	it("lacks the variables Atomic reads credentials from, in bash, RPC bash and extension exec", async () => {
		const expected = [
			"OPENAI_API_KEY=unset",
			"GEMINI_API_KEY=unset",
			"MY_PROXY_TOKEN=unset",
			"ORG_SECRET=unset",
			"USER_LABEL=alice",
			"GITHUB_TOKEN=gh-kept",
		];
		expect(await environments()).toEqual({ rpc: expected, tool: expected, exec: expected });
	});

	it("a project's settings cannot hand the keys to the commands", async () => {
		const project = await environments({}, { shellEnv: { inheritCredentials: true } });
		expect(project.tool).toContain("OPENAI_API_KEY=unset");
		expect(project.tool).toContain("MY_PROXY_TOKEN=unset");
	});

	it("keeps them with shellEnv.inheritCredentials: true, or those it names", async () => {
		const all = NAMES.map((name) => `${name}=${ENV[name as keyof typeof ENV]}`);
		expect(await environments({ shellEnv: { inheritCredentials: true } })).toEqual({ rpc: all, tool: all, exec: all });
		harness.server.reset();
		const named = await environments({ shellEnv: { inheritCredentials: ["MY_PROXY_TOKEN"] } });
		expect(named.tool).toEqual([
			"OPENAI_API_KEY=unset",
			"GEMINI_API_KEY=unset",
			"MY_PROXY_TOKEN=proxy-secret",
			"ORG_SECRET=unset",
			"USER_LABEL=alice",
			"GITHUB_TOKEN=gh-kept",
		]);
		expect(named.rpc).toEqual(named.tool);
		expect(named.exec).toEqual(named.tool);
	});
});
