import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { ContextUsage, ExtensionError, ExtensionHost, ExtensionMode } from "../../src/extensions/index.js";
import { ExtensionRunner } from "../../src/extensions/index.js";
import type { ExtensionUiBackend } from "../../src/extensions/ui-types.js";
import type { Model } from "../../src/llm/types.js";
import type { CommandInfo } from "../../src/resources/commands.js";

/** A host that records what extensions asked of it. */
export interface FakeHost extends ExtensionHost {
	cwd: string;
	mode: ExtensionMode;
	model: Model | undefined;
	idle: boolean;
	pending: boolean;
	usage: ContextUsage | undefined;
	commandList: CommandInfo[];
	setModelAnswer: boolean;
	calls: { method: string; args: unknown[] }[];
	/** Makes sendMessage/sendUserMessage return a rejected promise with this text. */
	failSends?: string;
}

export function fakeHost(cwd = "/work/project"): FakeHost {
	const host: FakeHost = {
		cwd,
		mode: "rpc",
		model: undefined,
		idle: true,
		pending: false,
		usage: undefined,
		commandList: [],
		setModelAnswer: true,
		calls: [],
		sendMessage(...args) {
			host.calls.push({ method: "sendMessage", args });
			return host.failSends ? Promise.reject(new Error(host.failSends)) : undefined;
		},
		sendUserMessage(...args) {
			host.calls.push({ method: "sendUserMessage", args });
			return host.failSends ? Promise.reject(new Error(host.failSends)) : undefined;
		},
		appendEntry(...args) {
			host.calls.push({ method: "appendEntry", args });
		},
		getCommands: () => host.commandList,
		async setModel(model) {
			host.calls.push({ method: "setModel", args: [model] });
			return host.setModelAnswer;
		},
		isIdle: () => host.idle,
		abort() {
			host.calls.push({ method: "abort", args: [] });
		},
		hasPendingMessages: () => host.pending,
		getContextUsage: () => host.usage,
		shutdown() {
			host.calls.push({ method: "shutdown", args: [] });
		},
	};
	return host;
}

export interface RunnerHarness {
	runner: ExtensionRunner;
	host: FakeHost;
	errors: ExtensionError[];
}

export function runnerHarness(ui?: ExtensionUiBackend, loadTimeoutMs?: number): RunnerHarness {
	const host = fakeHost();
	const errors: ExtensionError[] = [];
	const onError = (error: ExtensionError) => {
		errors.push(error);
	};
	const runner = new ExtensionRunner(ui ? { host, ui, onError, loadTimeoutMs } : { host, onError, loadTimeoutMs });
	return { runner, host, errors };
}

/** A scratch directory with helpers to write files into it; `remove()` deletes it. */
export function scratchDir(prefix = "atomic-ext-"): {
	dir: string;
	write(path: string, text: string): string;
	remove(): void;
} {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	return {
		dir,
		write(path, text) {
			const full = join(dir, path);
			mkdirSync(dirname(full), { recursive: true });
			writeFileSync(full, text);
			return full;
		},
		remove: () => rmSync(dir, { recursive: true, force: true }),
	};
}
