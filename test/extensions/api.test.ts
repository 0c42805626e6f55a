import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import type { ExtensionAPI, ExtensionContext } from "../../src/extensions/index.js";
import { MODEL } from "../agent/helpers.js";
import { runnerHarness } from "./helpers.js";

/** Loads one inline extension and hands back its API object. */
async function apiOf(harness: ReturnType<typeof runnerHarness>): Promise<ExtensionAPI> {
	let api: ExtensionAPI | undefined;
	await harness.runner.addExtension("/ext/api.ts", (atomic) => {
		api = atomic;
	});
	if (!api) throw new Error("the factory did not run");
	return api;
}

describe("ExtensionAPI actions", () => {
	it("forwards sendMessage, sendUserMessage, appendEntry, getCommands and setModel to the host", async () => {
		const harness = runnerHarness();
		const { host } = harness;
		host.commandList = [
			{
				name: "fix",
				source: "prompt",
				location: "project",
				path: "/p/fix.md",
				sourceInfo: { path: "/p/fix.md", source: "local", scope: "project", origin: "top-level", baseDir: "/p" },
			},
		];
		host.setModelAnswer = false;
		const api = await apiOf(harness);

		api.sendMessage({ customType: "note", content: "hi", display: true, details: { a: 1 } }, { deliverAs: "nextTurn" });
		api.sendUserMessage("do it", { deliverAs: "followUp" });
		api.appendEntry("state", { count: 2 });
		const commands = api.getCommands();
		const switched = await api.setModel(MODEL);

		expect(host.calls).toEqual([
			{
				method: "sendMessage",
				args: [{ customType: "note", content: "hi", display: true, details: { a: 1 } }, { deliverAs: "nextTurn" }],
			},
			{ method: "sendUserMessage", args: ["do it", { deliverAs: "followUp" }] },
			{ method: "appendEntry", args: ["state", { count: 2 }] },
			{ method: "setModel", args: [MODEL] },
		]);
		expect(commands).toEqual(host.commandList);
		expect(switched).toBe(false);
		expect(harness.errors).toEqual([]);
	});

	it("reports a host promise that rejects as an extension error", async () => {
		const harness = runnerHarness();
		harness.host.failSends = "agent is busy";
		const api = await apiOf(harness);

		api.sendUserMessage("later");
		api.sendMessage({ customType: "x", content: "y", display: false });
		await new Promise((resolve) => setImmediate(resolve));

		expect(harness.errors).toEqual([
			{ extensionPath: "/ext/api.ts", event: "sendUserMessage", error: "agent is busy" },
			{ extensionPath: "/ext/api.ts", event: "sendMessage", error: "agent is busy" },
		]);
	});

	it("exec runs a program without a shell in the session cwd", async () => {
		const harness = runnerHarness();
		harness.host.cwd = "/";
		const api = await apiOf(harness);

		const result = await api.exec(process.execPath, [
			"-e",
			"process.stdout.write(process.cwd()); console.error('e$HOME'); process.exit(3)",
		]);
		expect(result).toEqual({ stdout: "/", stderr: "e$HOME\n", code: 3, killed: false });

		const elsewhere = await api.exec(process.execPath, ["-e", "process.stdout.write(process.cwd())"], { cwd: "/tmp" });
		expect(elsewhere.stdout).toBe("/tmp");
	});

	it("exec kills on timeout and on abort, and turns a failed start into code 1", async () => {
		const harness = runnerHarness();
		harness.host.cwd = tmpdir();
		const api = await apiOf(harness);
		const forever = ["-e", "setInterval(() => {}, 1000)"];

		const timedOut = await api.exec(process.execPath, forever, { timeout: 50 });
		expect(timedOut).toMatchObject({ killed: true, code: 1 });

		const controller = new AbortController();
		const running = api.exec(process.execPath, forever, { signal: controller.signal });
		controller.abort();
		expect(await running).toMatchObject({ killed: true, code: 1 });

		expect(await api.exec(process.execPath, ["-e", "1"], { signal: controller.signal })).toEqual({
			stdout: "",
			stderr: "",
			code: 1,
			killed: true,
		});
		const missing = await api.exec("/nonexistent/program-atomic", []);
		expect(missing.code).toBe(1);
		expect(missing.killed).toBe(false);
		expect(missing.stderr).toContain("ENOENT");
	});
});

describe("ExtensionContext", () => {
	it("reads live values from the host and forwards the control calls", async () => {
		const harness = runnerHarness();
		const { host, runner } = harness;
		let ctx: ExtensionContext | undefined;
		await runner.addExtension("/ext/a.ts", (atomic) => {
			atomic.on("session_start", (_event, context) => {
				ctx = context;
			});
		});
		await runner.emit({ type: "session_start" });
		if (!ctx) throw new Error("no context");

		expect(ctx.mode).toBe("rpc");
		expect(ctx.hasUI).toBe(false);
		expect(ctx.model).toBeUndefined();
		host.model = MODEL;
		host.cwd = "/elsewhere";
		host.mode = "print";
		host.idle = false;
		host.pending = true;
		host.usage = { tokens: 10, contextWindow: 100, percent: 10 };
		expect([ctx.model?.id, ctx.cwd, ctx.mode, ctx.isIdle(), ctx.hasPendingMessages(), ctx.getContextUsage()]).toEqual([
			"scripted",
			"/elsewhere",
			"print",
			false,
			true,
			{ tokens: 10, contextWindow: 100, percent: 10 },
		]);
		ctx.abort();
		ctx.shutdown();
		expect(host.calls.map((call) => call.method)).toEqual(["abort", "shutdown"]);
		// pi's session and model views read the host too.
		expect(ctx.sessionManager.getSessionId()).toBe(host.session.id);
		expect(ctx.modelRegistry.getAll()).toEqual(host.modelRegistry.all());
	});

	it("has hasUI true when a UI backend is given; without one, dialogs answer their default", async () => {
		const headless = runnerHarness();
		expect(headless.runner.hasUI).toBe(false);
		expect(await headless.runner.ui.select("t", ["a"])).toBeUndefined();
		expect(await headless.runner.ui.confirm("t", "m")).toBe(false);
		expect(await headless.runner.ui.input("t")).toBeUndefined();
		expect(await headless.runner.ui.editor("t")).toBeUndefined();
		headless.runner.ui.notify("dropped");

		const withUi = runnerHarness({
			select: async (_title, options) => options[1],
			confirm: async () => true,
			input: async () => "typed",
			editor: async (_title, prefill) => `${prefill}+`,
			notify: () => undefined,
			setStatus: () => undefined,
			setWidget: () => undefined,
			setTitle: () => undefined,
			setEditorText: () => undefined,
		});
		expect(withUi.runner.hasUI).toBe(true);
		expect(await withUi.runner.ui.select("t", ["a", "b"])).toBe("b");
		expect(await withUi.runner.ui.confirm("t", "m")).toBe(true);
		expect(await withUi.runner.ui.input("t")).toBe("typed");
		expect(await withUi.runner.ui.editor("t", "x")).toBe("x+");
	});
});
