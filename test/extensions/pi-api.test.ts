/** The members of pi's ExtensionAPI and ctx that Atomic added for pi extensions, in-process. */
import { describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import type {
	ExtensionAPI,
	ExtensionCommandContext,
	ExtensionContext,
	ExtensionToolContext,
} from "../../src/extensions/index.js";
import { Type } from "../../src/llm/schema-builders.js";
import { runnerHarness } from "./helpers.js";

type Harness = ReturnType<typeof runnerHarness>;

async function load(harness: Harness, path = "/ext/pi.ts"): Promise<ExtensionAPI> {
	let api: ExtensionAPI | undefined;
	await harness.runner.addExtension(path, (pi) => {
		api = pi;
	});
	if (!api) throw new Error("the factory did not run");
	return api;
}

function fakeTool(name: string, execute: AgentTool["execute"] = async () => ({ content: [] })): AgentTool {
	return { name, description: `${name} tool`, parameters: Type.Object({ n: Type.Number() }), execute };
}

async function contextOf(harness: Harness, api: ExtensionAPI): Promise<ExtensionContext> {
	let ctx: ExtensionContext | undefined;
	api.on("session_start", (_event, context) => {
		ctx = context;
	});
	await harness.runner.emit({ type: "session_start" });
	if (!ctx) throw new Error("no context");
	return ctx;
}

describe("pi.* members", () => {
	it("on() returns an unsubscribe for that registration only", async () => {
		const harness = runnerHarness();
		const api = await load(harness);
		const seen: string[] = [];
		const first = api.on("agent_start", () => void seen.push("first"));
		api.on("agent_start", () => void seen.push("second"));
		await harness.runner.emit({ type: "agent_start" });
		first();
		await harness.runner.emit({ type: "agent_start" });
		expect(seen).toEqual(["first", "second", "second"]);
	});

	it("shares pi.events between extensions and reports a throwing handler", async () => {
		const harness = runnerHarness();
		const one = await load(harness, "/ext/one.ts");
		const two = await load(harness, "/ext/two.ts");
		const got: unknown[] = [];
		const stop = two.events.on("plan:changed", (data) => void got.push(data));
		two.events.on("plan:changed", () => {
			throw new Error("listener broke");
		});
		one.events.emit("plan:changed", { step: 1 });
		stop();
		one.events.emit("plan:changed", { step: 2 });
		expect(got).toEqual([{ step: 1 }]);
		expect(harness.errors.map((error) => [error.extensionPath, error.error])).toEqual([
			["events:plan:changed", "listener broke"],
			["events:plan:changed", "listener broke"],
		]);
	});

	it("names, labels and thinking levels go through the host", async () => {
		const harness = runnerHarness();
		const api = await load(harness);
		api.setSessionName("Refactor auth");
		expect(api.getSessionName()).toBe("Refactor auth");
		const entry = harness.host.session.appendCustomEntry("note");
		api.setLabel(entry.id, "checkpoint");
		expect(harness.host.session.getLabel(entry.id)).toBe("checkpoint");
		api.setLabel(entry.id, undefined);
		expect(harness.host.session.getLabel(entry.id)).toBeUndefined();
		api.setThinkingLevel("high");
		expect(api.getThinkingLevel()).toBe("high");
	});

	it("lists every tool with its source and narrows the active ones", async () => {
		const harness = runnerHarness();
		harness.host.toolList = [fakeTool("read"), fakeTool("bash")];
		const api = await load(harness);
		expect(api.getAllTools().map((tool) => [tool.name, tool.sourceInfo])).toEqual([
			["read", { path: "builtin:read", source: "builtin", scope: "temporary", origin: "top-level" }],
			["bash", { path: "builtin:bash", source: "builtin", scope: "temporary", origin: "top-level" }],
		]);
		api.setActiveTools(["bash", "nonexistent"]);
		expect(harness.runner.filterActive(harness.host.toolList).map((tool) => tool.name)).toEqual(["bash"]);
		expect(harness.host.calls.filter((call) => call.method === "refreshTools")).toHaveLength(1);
		expect(() => api.setActiveTools("bash" as unknown as string[])).toThrow("setActiveTools expects an array");
	});

	it("keeps flags at their defaults and accepts terminal-only registrations", async () => {
		const harness = runnerHarness();
		const api = await load(harness);
		api.registerFlag("plan", { type: "boolean", default: false, description: "Start in plan mode" });
		expect(api.getFlag("plan")).toBe(false);
		expect(api.getFlag("other")).toBeUndefined();
		expect(() => api.registerFlag("bad", { type: "number" } as never)).toThrow('`type` must be "boolean" or "string"');
		api.registerShortcut("ctrl+shift+p", { handler: () => undefined });
		api.registerMessageRenderer("note", () => undefined);
		api.registerEntryRenderer("note", () => undefined);
		api.registerToolRenderer(() => undefined);
		api.registerMarkdownTransformer((markdown) => markdown);
		expect(harness.errors).toEqual([]);
		expect(api.getSettings()).toEqual({});
	});

	it("reports pi's registrations Atomic cannot honour by name, and goes on", async () => {
		const harness = runnerHarness();
		const api = await load(harness);
		const call = (name: string, ...args: unknown[]) => (api[name] as (...values: unknown[]) => unknown)(...args);
		call("registerProvider", "corp", {});
		call("registerMcpServer", "jira", { url: "https://example.com" });
		expect(call("getMcpServers")).toEqual([]);
		expect(harness.errors).toEqual([
			{
				extensionPath: "/ext/pi.ts",
				event: "registerProvider",
				error: "pi.registerProvider is not available in Atomic: providers come from models.json",
			},
			{
				extensionPath: "/ext/pi.ts",
				event: "registerMcpServer",
				error: "pi.registerMcpServer is not available in Atomic: extensions cannot register MCP servers",
			},
		]);
	});
});

describe("ctx members", () => {
	it("reads the session, reports trust, scoped models, the thinking level and the system prompt", async () => {
		const harness = runnerHarness();
		const ctx = await contextOf(harness, await load(harness));
		const entry = harness.host.session.appendCustomEntry("note", { a: 1 });
		expect(ctx.sessionManager.getLeafId()).toBe(entry.id);
		expect(ctx.sessionManager.getEntries()).toEqual([entry]);
		expect(ctx.sessionManager.getBranch()).toEqual([entry]);
		expect(ctx.sessionManager.getSessionFile()).toBeUndefined();
		expect(ctx.sessionManager.getSessionDir()).toBe("");
		expect(ctx.sessionManager.getHeader()).toMatchObject({ type: "session", id: harness.host.session.id });
		expect(ctx.isProjectTrusted()).toBe(true);
		expect(ctx.scopedModels).toEqual([]);
		expect(ctx.thinkingLevel).toBe("off");
		expect(ctx.getSystemPrompt()).toBe("You are a test.");
	});

	it("compact() reports the outcome through its callbacks, else as an extension error", async () => {
		const harness = runnerHarness();
		const ctx = await contextOf(harness, await load(harness));
		const failure = new Promise<Error>((resolve) => ctx.compact({ customInstructions: "auth", onError: resolve }));
		expect((await failure).message).toBe("Nothing to compact (session too small)");
		expect(harness.host.calls.find((call) => call.method === "compact")?.args).toEqual(["auth"]);
		ctx.compact();
		await new Promise((resolve) => setImmediate(resolve));
		expect(harness.errors).toEqual([
			{ extensionPath: "/ext/pi.ts", event: "compact", error: "Nothing to compact (session too small)" },
		]);
	});

	it("gives commands session control; withSession runs after the switch", async () => {
		const harness = runnerHarness();
		const api = await load(harness);
		const order: string[] = [];
		let ctx: ExtensionCommandContext | undefined;
		api.registerCommand("go", {
			handler: async (_args, context) => {
				ctx = context;
				await context.newSession({
					withSession: async (replaced) => {
						order.push("with new");
						await replaced.sendMessage({ customType: "hello", content: "new session", display: true });
					},
				});
				await context.fork("e1");
				await context.switchSession("/s/other.jsonl", { withSession: async () => void order.push("with switch") });
				await context.navigateTree("e2", { summarize: true });
				await context.waitForIdle();
				await context.reload();
			},
		});
		await harness.runner.runCommand("go", "");
		expect(harness.errors).toEqual([]);
		expect(order).toEqual(["with new", "with switch"]);
		expect(harness.host.calls.map((call) => call.method)).toEqual([
			"newSession",
			"sendMessage",
			"fork",
			"switchSession",
			"navigateTree",
			"reloadResources",
		]);
		if (!ctx) throw new Error("no command context");
		await expect(ctx.fork("not-the-leaf", { position: "at" })).rejects.toThrow(
			'ctx.fork(entryId, { position: "at" }) away from the leaf is not available in Atomic',
		);
		await expect(ctx.newSession({ setup: async () => undefined } as never)).rejects.toThrow(
			"ctx.newSession({ setup }) is not available in Atomic",
		);
		expect(ctx.getSystemPromptOptions()).toEqual({
			cwd: harness.host.cwd,
			selectedTools: [],
			toolSnippets: {},
			toolGuidelines: {},
		});
	});

	it("lets a tool call another active tool through ctx.executeTool", async () => {
		const harness = runnerHarness();
		harness.host.toolList = [
			fakeTool("double", async (id, args) => ({
				content: [{ type: "text", text: `${id}:${(args as { n: number }).n * 2}` }],
			})),
		];
		const api = await load(harness);
		let toolCtx: ExtensionToolContext | undefined;
		api.registerTool({
			name: "outer",
			description: "Calls double",
			parameters: Type.Object({}),
			async execute(_id, _params, _signal, _onUpdate, ctx) {
				toolCtx = ctx;
				const inner = await ctx.executeTool("double", { n: 21 });
				return { content: inner.content };
			},
		});
		const outer = harness.runner.tools().find((tool) => tool.name === "outer");
		const result = await outer?.execute("call-7", {}, new AbortController().signal, () => undefined);
		expect(result?.content).toEqual([{ type: "text", text: "call-7/1:42" }]);
		if (!toolCtx) throw new Error("no tool context");
		expect(toolCtx.tools.map((tool) => tool.name)).toEqual(["double"]);
		expect(await toolCtx.executeTool("double", { n: "x" })).toMatchObject({ isError: true });
		expect(await toolCtx.executeTool("missing", {})).toEqual({
			content: [{ type: "text", text: "Tool missing not found" }],
			isError: true,
		});
	});
});

describe("ui_prompt_start / ui_prompt_end", () => {
	it("wrap dialogs; overlapping ones count as one span", async () => {
		let release: (value: string) => void = () => undefined;
		const harness = runnerHarness({
			select: () => new Promise((resolve) => (release = resolve)),
			confirm: async () => true,
			input: async () => "typed",
			editor: async () => undefined,
			notify: () => undefined,
			setStatus: () => undefined,
			setWidget: () => undefined,
			setTitle: () => undefined,
			setEditorText: () => undefined,
		});
		const api = await load(harness);
		const spans: string[] = [];
		api.on("ui_prompt_start", (event) => void spans.push(`start ${event.kind} ${event.title}`));
		api.on("ui_prompt_end", (event) => void spans.push(`end ${event.kind} ${event.title}`));
		const picked = harness.runner.ui.select("Pick", ["a", "b"]);
		expect(await harness.runner.ui.confirm("Sure?", "really")).toBe(true);
		release("b");
		expect(await picked).toBe("b");
		await new Promise((resolve) => setImmediate(resolve));
		expect(spans).toEqual(["start select Pick", "end select Pick"]);
	});
});
