import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolCallContext } from "../../src/agent/types.js";
import { type ExtensionError, type ExtensionRunner, loadExtensions } from "../../src/extensions/index.js";
import type { AssistantMessage } from "../../src/llm/types.js";
import { type ExtensionUiRequest, RpcExtensionUi } from "../../src/rpc/extension-ui.js";
import { fakeHost, scratchDir } from "./helpers.js";

const EXAMPLES = resolve("examples/extensions");

function bashCall(command: string): ToolCallContext {
	const args = { command };
	return {
		assistantMessage: {} as AssistantMessage,
		toolCall: { type: "toolCall", id: "call-1", name: "bash", arguments: args },
		args,
	};
}

describe("examples/extensions", () => {
	const work = scratchDir("atomic-examples-");
	const records: ExtensionUiRequest[] = [];
	const errors: ExtensionError[] = [];
	let counter = 0;
	let onRecord: (() => void) | undefined;
	const ui = new RpcExtensionUi(
		(record) => {
			records.push(record);
			onRecord?.();
		},
		() => `ui-${++counter}`,
	);
	/** Resolves with the id of the dialog request the extension is about to write. */
	const nextDialog = () =>
		new Promise<string>((resolve) => {
			onRecord = () => {
				onRecord = undefined;
				resolve(records.at(-1)?.id ?? "");
			};
		});
	let runner: ExtensionRunner;

	beforeAll(async () => {
		runner = await loadExtensions({
			paths: ["confirm-dangerous-bash.ts", "status-widget.ts", "word-count-tool.ts", "no-forks.ts"],
			cwd: EXAMPLES,
			agentDir: work.dir,
			discover: false,
			host: fakeHost(work.dir),
			ui,
			onError: (error) => errors.push(error),
		});
	});
	afterAll(() => work.remove());

	const take = () => records.splice(0).map(({ id: _id, ...rest }) => rest);

	it("all load", () => {
		expect(errors).toEqual([]);
		expect(runner.extensionPaths.map((path) => path.slice(EXAMPLES.length + 1))).toEqual([
			"confirm-dangerous-bash.ts",
			"status-widget.ts",
			"word-count-tool.ts",
			"no-forks.ts",
		]);
	});

	it("confirm-dangerous-bash asks with a 10 s select and blocks unless the answer is Allow", async () => {
		expect(await runner.beforeToolCall(bashCall("ls -la"), new AbortController().signal)).toBeUndefined();
		expect(take()).toEqual([]);

		let dialog = nextDialog();
		const allowed = runner.beforeToolCall(bashCall("rm -rf build"), new AbortController().signal);
		const id = await dialog;
		expect(take()).toEqual([
			{
				type: "extension_ui_request",
				method: "select",
				title: "Allow dangerous command?",
				options: ["Allow", "Block"],
				timeout: 10000,
			},
		]);
		ui.handleResponse({ id, value: "Allow" });
		expect(await allowed).toBeUndefined();

		dialog = nextDialog();
		const blocked = runner.beforeToolCall(bashCall("sudo reboot"), new AbortController().signal);
		ui.handleResponse({ id: await dialog, value: "Block" });
		expect(await blocked).toEqual({ block: true, reason: "Blocked by the user" });
		expect(take().map((record) => record.method)).toEqual(["select", "notify"]);

		dialog = nextDialog();
		const cancelled = runner.beforeToolCall(bashCall("git push --force origin main"), new AbortController().signal);
		await dialog;
		ui.cancelAll();
		expect(await cancelled).toEqual({ block: true, reason: "No answer from the user; blocked" });
		take();
	});

	it("status-widget's /status-demo sets a status, a widget and notifies", async () => {
		expect(runner.commands().map((command) => command.name)).toEqual(["status-demo"]);
		expect(await runner.runCommandText("/status-demo hello")).toBe(true);
		expect(take()).toEqual([
			{ type: "extension_ui_request", method: "setStatus", statusKey: "status-demo", statusText: "no model · idle" },
			{
				type: "extension_ui_request",
				method: "setWidget",
				widgetKey: "status-demo",
				widgetLines: ["--- status demo ---", `cwd: ${work.dir}`, "args: hello"],
				widgetPlacement: "belowEditor",
			},
			{ type: "extension_ui_request", method: "notify", message: "Status demo updated", notifyType: "info" },
		]);
	});

	it("word-count-tool counts a file relative to the cwd", async () => {
		work.write("notes.txt", "one two  three\nfour\n");
		const tool = runner.tools().find((candidate) => candidate.name === "word_count");
		const result = await tool?.execute("c1", { path: "notes.txt" }, new AbortController().signal, () => undefined);
		expect(result).toEqual({
			content: [{ type: "text", text: "notes.txt: 2 lines, 4 words, 20 characters" }],
			details: { lines: 2, words: 4, characters: 20 },
		});
	});

	it("no-forks cancels every fork with a notification", async () => {
		expect(await runner.beforeFork("abc")).toEqual({ cancel: true });
		expect(take()).toEqual([
			{
				type: "extension_ui_request",
				method: "notify",
				message: "Forking is disabled in this project (no-forks extension)",
				notifyType: "warning",
			},
		]);
	});
});
