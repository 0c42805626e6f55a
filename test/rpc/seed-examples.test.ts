/**
 * The examples the RPC contract points at: test/rpc-example.ts (an interactive terminal client),
 * examples/rpc-extension-ui.ts (a client answering extension UI requests) and the extension it
 * pairs with, examples/extensions/rpc-demo.ts. Each runs against the built CLI and the loopback
 * model server.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { textReply, toolReply } from "../support/llm-server.js";
import { CLI, childEnv, makeAgentDir } from "../support/rpc-process.js";
import { answer, EXAMPLES, nextDialog, startWithExtensions, toolEnds, uiFrames } from "./extensions-helpers.js";
import { transcript, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();
const RUN_TS = resolve("scripts/run-ts.mjs");
const RPC_DEMO = join(EXAMPLES, "rpc-demo.ts");

interface Running {
	child: ChildProcessWithoutNullStreams;
	output(): string;
	/** Resolves once stdout contains `text` after position `from` (default: anywhere). */
	until(text: string, from?: number): Promise<number>;
	exited: Promise<number | null>;
}

const running: { child: ChildProcessWithoutNullStreams; cleanup(): void }[] = [];
afterEach(() => {
	for (const { child, cleanup } of running.splice(0)) {
		if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
		cleanup();
	}
});

/** Runs a TypeScript example with `node scripts/run-ts.mjs`, Atomic as ATOMIC_CLI, the mock model as default. */
function runExample(script: string, args: string[]): Running {
	const dirs = makeAgentDir({
		server: harness.server,
		settings: { defaultProvider: "mock", defaultModel: "mock-model" },
	});
	const child = spawn(process.execPath, [RUN_TS, resolve(script), ...args], {
		cwd: dirs.work,
		env: childEnv(dirs.agentDir, dirs.home, { ATOMIC_CLI: CLI }),
	});
	running.push({ child, cleanup: dirs.cleanup });
	let stdout = "";
	let stderr = "";
	const waiters = new Set<() => void>();
	child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
		stdout += chunk;
		for (const waiter of [...waiters]) waiter();
	});
	child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
		stderr += chunk;
	});
	const exited = new Promise<number | null>((resolveExit) => child.on("exit", (code) => resolveExit(code)));
	return {
		child,
		output: () => stdout,
		exited,
		until: (text, from = 0) =>
			new Promise((resolveAt, reject) => {
				const check = () => {
					const at = stdout.indexOf(text, from);
					if (at < 0) return;
					waiters.delete(check);
					clearTimeout(timer);
					resolveAt(at + text.length);
				};
				const timer = setTimeout(() => {
					waiters.delete(check);
					reject(new Error(`no ${JSON.stringify(text)} in stdout:\n${stdout}\nstderr:\n${stderr}`));
				}, 20_000);
				waiters.add(check);
				check();
			}),
	};
}

describe("test/rpc-example.ts", () => {
	it("streams the reply to a typed prompt, aborts on Ctrl+C, and quits at the end of input", async () => {
		const example = runExample("test/rpc-example.ts", ["--no-session"]);
		await example.until("> ");
		harness.server.enqueue({ blocks: [{ type: "text", text: "Hello from the model", chunks: 4 }] });
		example.child.stdin.write("hi there\n");
		let at = await example.until("Hello from the model\n> ");
		expect(transcript(harness.server.requests[0])).toEqual(["user: hi there"]);

		harness.server.enqueue({
			blocks: [
				{ type: "text", text: "a long story that never ends", chunks: ["a long", " story", " that never ends"] },
			],
			fault: "stall",
			faultAfterFrames: 4,
		});
		example.child.stdin.write("tell me a story\n");
		at = await example.until("a long", at);
		example.child.kill("SIGINT");
		at = await example.until("[aborted]\n> ", at);

		example.child.stdin.end();
		expect(await example.exited).toBe(0);
	});
});

describe("examples/rpc-extension-ui.ts with examples/extensions/rpc-demo.ts", () => {
	it("answers each dialog from the terminal and shows the fire-and-forget requests", async () => {
		const example = runExample("examples/rpc-extension-ui.ts", ["-e", RPC_DEMO, "--no-session"]);
		let at = await example.until("Pick a color [number, empty to cancel]: ");
		expect(example.output()).toContain("  1. red\n  2. green\n  3. blue\n");
		example.child.stdin.write("2\n");
		at = await example.until("Continue? You picked green. [y/n]: ", at);
		example.child.stdin.write("y\n");
		at = await example.until("Your name (type a name) (closes by itself after 60 s): ", at);
		example.child.stdin.write("Ada\n");
		at = await example.until("Replacement text, empty to keep it: ", at);
		example.child.stdin.write("\n");
		await example.until("The demo finished.\n", at);
		expect(await example.exited).toBe(0);

		const output = example.output();
		expect(output).toContain('[setTitle] {"title":"rpc-demo"}\n');
		expect(output).toContain('[setStatus] {"statusKey":"rpc-demo","statusText":"running"}\n');
		expect(output).toContain('[set_editor_text] {"text":"Hello Ada"}\n');
		expect(output).toContain(
			'[notify] {"message":"color=green sure=true name=Ada notes=\\"first line\\\\nsecond line\\"; custom=undefined;',
		);
	});
});

describe("examples/extensions/rpc-demo.ts over RPC", () => {
	it("uses every ctx.ui method: fire-and-forget frames, dialogs, and the degraded terminal-only members", async () => {
		const { agent, dirs } = await startWithExtensions(harness.server, { examples: ["rpc-demo.ts"] });
		const from = agent.mark();
		agent.send({ id: "demo", type: "prompt", message: "/rpc-demo" });
		answer(agent, await nextDialog(agent, "select", from), { value: "blue" });
		answer(agent, await nextDialog(agent, "confirm", from), { confirmed: false });
		answer(agent, await nextDialog(agent, "input", from), { cancelled: true });
		answer(agent, await nextDialog(agent, "editor", from), { value: "my notes" });
		await agent.waitFor((record) => record.type === "response" && record.id === "demo", { start: from });

		expect(uiFrames(agent, from)).toEqual([
			{ type: "extension_ui_request", method: "setTitle", title: "rpc-demo" },
			{ type: "extension_ui_request", method: "setStatus", statusKey: "rpc-demo", statusText: "running" },
			{
				type: "extension_ui_request",
				method: "setWidget",
				widgetKey: "rpc-demo",
				widgetLines: ["rpc-demo widget", `cwd: ${dirs.work}`],
				widgetPlacement: "aboveEditor",
			},
			{ type: "extension_ui_request", method: "notify", message: "The demo starts", notifyType: "info" },
			{ type: "extension_ui_request", method: "select", title: "Pick a color", options: ["red", "green", "blue"] },
			{ type: "extension_ui_request", method: "confirm", title: "Continue?", message: "You picked blue." },
			{
				type: "extension_ui_request",
				method: "input",
				title: "Your name",
				placeholder: "type a name",
				timeout: 60_000,
			},
			{ type: "extension_ui_request", method: "editor", title: "Notes", prefill: "first line\nsecond line" },
			{ type: "extension_ui_request", method: "set_editor_text", text: "Hello stranger" },
			{ type: "extension_ui_request", method: "set_editor_text", text: " (pasted)" },
			{ type: "extension_ui_request", method: "setWidget", widgetKey: "rpc-demo" },
			{ type: "extension_ui_request", method: "setStatus", statusKey: "rpc-demo" },
			{
				type: "extension_ui_request",
				method: "notify",
				message: [
					'color=blue sure=false name=- notes="my notes"; custom=undefined; editor text ""',
					"editor component undefined",
					"tools expanded true",
					'render settings {"toolOutputExpanded":true}',
					'themes 0, theme "dark" undefined',
					"setTheme Theme switching not supported in RPC mode",
					'styled "plain"',
				].join("; "),
				notifyType: "warning",
			},
		]);
	});

	it("asks before the model's bash calls and blocks what the client blocks", async () => {
		const { agent } = await startWithExtensions(harness.server, { examples: ["rpc-demo.ts"] });
		harness.server.enqueue(toolReply("bash", { command: "echo hi" }), textReply("ok"));
		const from = agent.mark();
		agent.send({ type: "prompt", message: "run it" });
		const dialog = await nextDialog(agent, "select", from);
		expect(dialog).toMatchObject({ title: "Run `echo hi`?", options: ["Allow", "Block"], timeout: 15_000 });
		answer(agent, dialog, { value: "Block" });
		await agent.waitForEvent("agent_settled", () => true, from);
		expect(toolEnds(agent, from).map((record) => [record.result, record.isError])).toEqual([
			[{ content: [{ type: "text", text: "Blocked in the rpc-demo dialog" }], details: {} }, true],
		]);
	});
});
