import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ExtensionError, loadExtensions } from "../../src/extensions/index.js";
import { fakeHost, runnerHarness, scratchDir } from "./helpers.js";

/** An extension that registers a command named after itself. */
function commandExtension(name: string, description = name): string {
	return `export default function (atomic) { atomic.registerCommand(${JSON.stringify(name)}, { description: ${JSON.stringify(description)}, handler() {} }); }\n`;
}

describe("loadExtensions", () => {
	let agent: ReturnType<typeof scratchDir>;
	let project: ReturnType<typeof scratchDir>;
	let errors: ExtensionError[];

	beforeEach(() => {
		agent = scratchDir("atomic-agent-dir-");
		project = scratchDir("atomic-project-");
		errors = [];
	});
	afterEach(() => {
		agent.remove();
		project.remove();
	});

	const load = (options: { paths?: string[]; discover?: boolean } = {}) =>
		loadExtensions({
			cwd: project.dir,
			agentDir: agent.dir,
			host: fakeHost(project.dir),
			onError: (error) => errors.push(error),
			...options,
		});

	it("discovers *.ts, *.js and */index.{ts,js} in the agent dir, then in .atomic/extensions", async () => {
		const a = agent.write("extensions/a.ts", commandExtension("a"));
		const b = agent.write("extensions/b.js", commandExtension("b"));
		const c = agent.write("extensions/c/index.ts", commandExtension("c"));
		const d = agent.write("extensions/d/index.js", commandExtension("d"));
		agent.write("extensions/types.d.ts", "export type X = number;\n");
		agent.write("extensions/notes.md", "# not an extension\n");
		agent.write("extensions/.hidden.ts", commandExtension("hidden"));
		agent.write("extensions/empty/helper.ts", commandExtension("helper"));
		const p = project.write(".atomic/extensions/p.ts", commandExtension("p"));

		const runner = await load();

		expect(errors).toEqual([]);
		expect(runner.extensionPaths).toEqual([a, b, c, d, p]);
		expect(runner.commands().map((command) => [command.name, command.path, command.sourceInfo.scope])).toEqual([
			["a", a, "user"],
			["b", b, "user"],
			["c", c, "user"],
			["d", d, "user"],
			["p", p, "project"],
		]);
	});

	it("loads explicit paths (files and directories, relative to cwd) after discovered ones, once each", async () => {
		const discovered = agent.write("extensions/found.ts", commandExtension("found"));
		const file = project.write("tools/explicit.ts", commandExtension("explicit"));
		const dirIndex = project.write("tools/bundle/index.ts", commandExtension("bundle"));

		const runner = await load({ paths: ["tools/explicit.ts", join(project.dir, "tools/bundle"), file] });

		expect(errors).toEqual([]);
		expect(runner.extensionPaths).toEqual([discovered, file, dirIndex]);
	});

	it("--no-extensions skips discovery but still loads explicit paths", async () => {
		agent.write("extensions/found.ts", commandExtension("found"));
		project.write(".atomic/extensions/local.ts", commandExtension("local"));
		const file = project.write("explicit.ts", commandExtension("explicit"));

		const runner = await load({ paths: ["explicit.ts"], discover: false });

		expect(runner.extensionPaths).toEqual([file]);
		expect(runner.commands().map((command) => [command.name, command.sourceInfo])).toEqual([
			["explicit", { path: file, source: "cli", scope: "temporary", origin: "top-level" }],
		]);
	});

	it("reports failing files with event load and keeps loading the others", async () => {
		const good1 = agent.write("extensions/1-good.ts", commandExtension("one"));
		const throws = agent.write(
			"extensions/2-throws.ts",
			'export default function (atomic) { atomic.registerCommand("half", { handler() {} }); throw new Error("factory exploded"); }\n',
		);
		const syntax = agent.write("extensions/3-syntax.ts", "export default function ( {\n");
		const noFactory = agent.write("extensions/4-no-factory.ts", "export const value = 1;\n");
		const rejects = agent.write(
			"extensions/5-async.ts",
			'export default async function () { await Promise.resolve(); throw new Error("async factory failed"); }\n',
		);
		const good2 = agent.write("extensions/6-good.js", commandExtension("six"));

		const runner = await load({ paths: ["missing.ts"] });

		expect(runner.extensionPaths).toEqual([good1, good2]);
		expect(runner.commands().map((command) => command.name)).toEqual(["one", "six"]);
		expect(errors.map((error) => [error.extensionPath, error.event])).toEqual([
			[join(project.dir, "missing.ts"), "load"],
			[throws, "load"],
			[syntax, "load"],
			[noFactory, "load"],
			[rejects, "load"],
		]);
		expect(errors[0]?.error).toBe("Extension path missing.ts does not exist");
		expect(errors[1]?.error).toBe("factory exploded");
		expect(errors[2]?.error.length).toBeGreaterThan(0);
		expect(errors[3]?.error).toBe("The extension does not default-export a function");
		expect(errors[4]?.error).toBe("async factory failed");
	});

	it("gives duplicate command names :1, :2 suffixes in load order", async () => {
		const first = agent.write("extensions/a.ts", commandExtension("review", "first"));
		const unique = agent.write("extensions/b.ts", commandExtension("solo"));
		const second = project.write(".atomic/extensions/c.ts", commandExtension("review", "second"));

		const runner = await load();

		const userDir = join(agent.dir, "extensions");
		const projectDir = join(project.dir, ".atomic", "extensions");
		const local = (path: string, scope: string, baseDir: string) => ({
			path,
			source: "local",
			scope,
			origin: "top-level",
			baseDir,
		});
		expect(runner.commands()).toEqual([
			{ name: "review:1", description: "first", path: first, sourceInfo: local(first, "user", userDir) },
			{ name: "solo", description: "solo", path: unique, sourceInfo: local(unique, "user", userDir) },
			{ name: "review:2", description: "second", path: second, sourceInfo: local(second, "project", projectDir) },
		]);
		expect(runner.isCommand("/review:2 now")).toBe(true);
		expect(runner.isCommand("/review now")).toBe(false);
	});

	it("resolves typebox (and its subpaths) to Atomic's copy for extensions outside the package", async () => {
		const file = agent.write(
			"extensions/tool.ts",
			[
				'import { Type } from "typebox";',
				'import { Value } from "typebox/value";',
				'import type { ExtensionAPI } from "atomic-agent";',
				"const schema = Type.Object({ path: Type.String() });",
				"export default function (atomic: ExtensionAPI) {",
				"  atomic.registerTool({",
				'    name: "echo_path", description: "echo", parameters: schema,',
				"    async execute(_id, params) {",
				'      return { content: [{ type: "text", text: params.path + ":" + Value.Check(schema, params) }] };',
				"    },",
				"  });",
				"}",
			].join("\n"),
		);

		const runner = await load();

		expect(errors).toEqual([]);
		expect(runner.extensionPaths).toEqual([file]);
		const [tool] = runner.tools();
		expect(tool?.name).toBe("echo_path");
		const result = await tool?.execute("call-1", { path: "a.txt" }, new AbortController().signal, () => undefined);
		expect(result?.content).toEqual([{ type: "text", text: "a.txt:true" }]);
	});

	// Value imports from "atomic-agent" are tested through the CLI (package-entry.test.ts).
	it("accepts type imports from pi's package names and from atomic-agent", async () => {
		const file = agent.write(
			"extensions/pi-style.ts",
			[
				'import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";',
				'import type { ExtensionContext } from "@earendil-works/pi-coding-agent";',
				'import type { AgentSession } from "atomic-agent";',
				"export default function (pi: ExtensionAPI) {",
				"  const none: AgentSession | undefined = undefined;",
				'  pi.registerCommand("probe", { description: typeof none, handler: async (_args: string, _ctx: ExtensionContext) => {} });',
				"}",
			].join("\n"),
		);

		const runner = await load();

		expect(errors).toEqual([]);
		expect(runner.commands()).toEqual([
			{ name: "probe", description: "undefined", path: file, sourceInfo: expect.objectContaining({ path: file }) },
		]);
	});

	it("awaits async factories before the next extension loads", async () => {
		agent.write(
			"extensions/a.ts",
			'export default async function (atomic) { await new Promise((resolve) => setImmediate(resolve)); atomic.registerCommand("late", { handler() {} }); }\n',
		);
		agent.write("extensions/b.ts", commandExtension("next"));

		const runner = await load();

		expect(runner.commands().map((command) => command.name)).toEqual(["late", "next"]);
	});

	it("gives up on a factory that never settles, so nothing waits for it for good", async () => {
		const { runner, errors: loadErrors } = runnerHarness(undefined, 50);
		const hanging = await runner.addExtension("/ext/hanging.ts", (atomic) => {
			atomic.registerCommand("never", { handler: () => undefined });
			return new Promise<void>(() => undefined);
		});
		const next = await runner.addExtension("/ext/next.ts", (atomic) => {
			atomic.registerCommand("next", { handler: () => undefined });
		});
		expect([hanging, next]).toEqual([false, true]);
		expect(runner.commands().map((command) => command.name)).toEqual(["next"]);
		expect(loadErrors).toEqual([
			{
				extensionPath: "/ext/hanging.ts",
				event: "load",
				error: "The extension did not finish loading within 50 ms; it is not loaded",
			},
		]);
	});
});
