import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, makeAgentDir } from "../support/rpc-process.js";

const LOAD_LOG = join(import.meta.dirname, "../support/load-log.cjs");

/** SDKs bundled into lazily loaded chunks: the bundler's comments name their source files. */
const BUNDLED_SDKS = {
	acp: "node_modules/@agentclientprotocol/sdk/",
	mcp: "node_modules/@modelcontextprotocol/sdk/",
	anthropic: "node_modules/@anthropic-ai/sdk/",
	openai: "node_modules/openai/",
};
/** Packages that stay outside the bundle: their paths show. */
const EXTERNAL_SDKS = ["@google/genai", "/jiti/"];

const trees: ReturnType<typeof makeAgentDir>[] = [];
afterEach(() => {
	for (const tree of trees.splice(0)) tree.cleanup();
});

/** Runs `atomic <args>` to its first response to `get_state` and then to its exit; the files it loaded. */
async function loadedBy(args: string[], input: string): Promise<{ urls: string[]; sources: string }> {
	// Without the idle preload, which loads the model's SDK once the process has been idle a while.
	const tree = makeAgentDir({ settings: { idlePreload: false } });
	trees.push(tree);
	const log = join(tree.root, "loads.log");
	const child = spawn(process.execPath, ["--require", LOAD_LOG, CLI, ...args], {
		cwd: tree.work,
		env: {
			PATH: process.env.PATH,
			HOME: tree.home,
			ATOMIC_CODING_AGENT_DIR: tree.agentDir,
			ATOMIC_TEST_LOAD_LOG: log,
		},
		stdio: ["pipe", "pipe", "pipe"],
	});
	let stdout = "";
	const answered = new Promise<void>((resolve) => {
		child.stdout.on("data", (chunk: Buffer) => {
			stdout += chunk.toString("utf8");
			if (stdout.includes('"id":"s"')) resolve();
		});
	});
	child.stdin.write(input);
	await answered;
	child.stdin.end();
	await new Promise((resolve) => child.on("exit", resolve));
	const urls = readFileSync(log, "utf8").split("\n").filter(Boolean);
	const sources = urls
		.filter((url) => url.startsWith("file:") && url.includes("/dist/"))
		.map((url) => readFileSync(new URL(url), "utf8"))
		.join("\n");
	return { urls, sources };
}

/**
 * Node modules that start-up does not need (src/platform/lazy-builtins.ts): node:fs/promises also
 * loads readline and the file watchers; start-up reads its files synchronously.
 */
const LAZY_BUILTINS = [
	"node:child_process",
	"node:worker_threads",
	"node:crypto",
	"node:fs/promises",
	"node:timers/promises",
];

describe("start-up loads only what the mode needs", () => {
	it("RPC mode answers get_state without loading a provider, ACP or MCP SDK", async () => {
		const { urls, sources } = await loadedBy(["--mode", "rpc", "--no-session"], '{"id":"s","type":"get_state"}\n');
		// The log sees the bundle's own chunks, so an SDK chunk would show too. RPC mode's code is in
		// the one start-up chunk (see scripts/build.mjs): a handful of files, not one per shared module.
		// The heap tuning is loaded 100 ms after start-up, by a timer: a slow run may get that far.
		const bundled = urls.filter(
			(url) => url.startsWith("file:") && url.includes("/dist/") && !/\/chunks\/heap-tuning-[\w-]+\.js$/.test(url),
		);
		expect(bundled.some((url) => /\/dist\/chunks\/startup-[\w-]+\.js$/.test(url))).toBe(true);
		expect(sources).toContain("// src/rpc/rpc-mode.ts");
		expect(bundled.length).toBeLessThanOrEqual(6);
		for (const name of EXTERNAL_SDKS) expect(urls.filter((url) => url.includes(name))).toEqual([]);
		for (const sdk of Object.values(BUNDLED_SDKS)) expect(sources).not.toContain(sdk);
		// Nor TypeBox's validator (valid files and commands pass the quick check), nor Node's
		// process and thread modules, which only a spawn or a search needs, nor node:crypto, nor the
		// promise APIs of the file system and timers.
		expect(sources).not.toContain("node_modules/typebox/build/value/");
		for (const builtin of LAZY_BUILTINS) expect(urls).not.toContain(builtin);
	});

	it("a new session's id and entries need no node:crypto", async () => {
		const { urls } = await loadedBy(
			["--mode", "rpc"],
			'{"id":"n","type":"set_session_name","name":"named"}\n{"id":"s","type":"get_state"}\n',
		);
		for (const builtin of LAZY_BUILTINS) expect(urls).not.toContain(builtin);
	});

	it("ACP mode loads the ACP SDK, and no provider or MCP SDK before a prompt", async () => {
		const initialize = { jsonrpc: "2.0", id: "s", method: "initialize", params: { protocolVersion: 1 } };
		const { urls, sources } = await loadedBy(["--mode", "acp"], `${JSON.stringify(initialize)}\n`);
		for (const name of EXTERNAL_SDKS) expect(urls.filter((url) => url.includes(name))).toEqual([]);
		expect(sources).toContain(BUNDLED_SDKS.acp);
		for (const sdk of [BUNDLED_SDKS.mcp, BUNDLED_SDKS.anthropic, BUNDLED_SDKS.openai]) {
			expect(sources).not.toContain(sdk);
		}
	});
});

describe("the bundled provider SDKs", () => {
	it("hold the Anthropic client's Messages resource and not the rest of its resources", () => {
		const chunks = join(import.meta.dirname, "../../dist/chunks");
		const sources = readdirSync(chunks)
			.filter((name) => name.endsWith(".js"))
			.map((name) => readFileSync(join(chunks, name), "utf8"));
		const sdk = sources.filter((source) => source.includes(`${BUNDLED_SDKS.anthropic}client.mjs`));
		expect(sdk).toHaveLength(1);
		expect(sdk[0]).toContain(`${BUNDLED_SDKS.anthropic}resources/messages/messages.mjs`);
		// The beta resources are most of the SDK; the full client would bring them in.
		expect(sdk[0]).not.toContain(`${BUNDLED_SDKS.anthropic}resources/beta/messages/`);
		expect(sdk[0]).not.toContain(`${BUNDLED_SDKS.anthropic}resources/models.mjs`);
	});
});
