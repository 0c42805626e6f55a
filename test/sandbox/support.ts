/**
 * Shared pieces of the sandbox tests: a real `bwrap` (missing: skipped with a warning, or one
 * failing test in CI), agents started over RPC in a tree outside /tmp (the sandbox gives commands
 * a private /tmp, which would hide a tree there and prove nothing), optionally as an unprivileged
 * user, and a scripted model that makes one bash (or other tool) call per prompt.
 */
import { spawnSync } from "node:child_process";
import {
	chmodSync,
	chownSync,
	cpSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	rmSync,
	statSync,
	writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { LlmServer } from "../support/llm-server.js";
import { textReply, toolReply } from "../support/llm-server.js";
import { CLI, RpcAgent, type RpcRecord, testProviders } from "../support/rpc-process.js";

/** The uid and gid the unprivileged runs use (`nobody`). */
export const NOBODY = 65534;
/** A provider key in the agent's environment: no command may see it. */
export const SECRET_KEY = "sk-ant-sandbox-test-0123456789";

/** The programs the sandbox tests need: bwrap, and setpriv, curl and git to try it from outside. */
const SANDBOX_TOOLS = ["bwrap", "setpriv", "curl", "git"] as const;

function missingTools(): string[] {
	return SANDBOX_TOOLS.filter((tool) => spawnSync(tool, ["--version"], { stdio: "ignore" }).status !== 0);
}

/**
 * `describe` that needs the real bwrap (and setpriv, curl, git): skipped loudly without them, and one
 * failing test in CI (ATOMIC_REQUIRE_SYSTEM_TOOLS=1).
 */
export function describeWithBubblewrap(name: string, body: () => void): void {
	const missing = missingTools();
	if (missing.length === 0) {
		describe(name, body);
		return;
	}
	const what = `${missing.join(", ")} not on PATH`;
	if (process.env.ATOMIC_REQUIRE_SYSTEM_TOOLS === "1") {
		describe(name, () => {
			it(`needs ${missing.join(", ")}`, () => {
				throw new Error(`${what}: CI installs bubblewrap, util-linux, curl and git (.ci/run)`);
			});
		});
		return;
	}
	console.warn(
		`SKIPPED "${name}": ${what}; install bubblewrap, curl and git to run the sandbox tests (in CI this fails)`,
	);
	describe.skip(name, body);
}

let copiedCli: string | undefined;

/** Whether `uid` can read `path` (every folder above it searchable). */
function readableBy(uid: number, path: string): boolean {
	const id = String(uid);
	const check = spawnSync("setpriv", [`--reuid=${id}`, `--regid=${id}`, "--clear-groups", "test", "-r", path]);
	return check.status === 0;
}

/**
 * The CLI an unprivileged user can run: this checkout's when that user can read it, else a copy of
 * dist/ and node_modules/ under /var/tmp (a checkout under /root is not readable by others).
 */
function cliFor(uid: number): string {
	if (readableBy(uid, CLI) && readableBy(uid, resolve("node_modules/typebox/package.json"))) return CLI;
	if (copiedCli) return copiedCli;
	if (!readableBy(uid, process.execPath)) {
		throw new Error(
			`${process.execPath} cannot be run by uid ${uid}: the unprivileged sandbox tests need a node others can run`,
		);
	}
	const copy = mkdtempSync("/var/tmp/atomic-cli-");
	chmodSync(copy, 0o755);
	for (const part of ["dist", "node_modules", "package.json"])
		cpSync(resolve(part), join(copy, part), { recursive: true });
	process.once("exit", () => rmSync(copy, { recursive: true, force: true }));
	copiedCli = join(copy, "dist", "cli.js");
	return copiedCli;
}

export interface SandboxTree {
	root: string;
	agentDir: string;
	home: string;
	work: string;
}

const trees: string[] = [];
const agents: RpcAgent[] = [];

afterEach(async () => {
	for (const agent of agents.splice(0)) {
		agent.kill();
		await agent.exited;
	}
	for (const root of trees.splice(0)) rmSync(root, { recursive: true, force: true });
});

function git(cwd: string, ...args: string[]): void {
	const result = spawnSync("git", args, { cwd, encoding: "utf8" });
	if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
}

function chownTree(path: string, uid: number): void {
	chownSync(path, uid, uid);
	if (!statSync(path).isDirectory()) return;
	for (const name of readdirSync(path)) chownTree(join(path, name), uid);
}

/**
 * A tree under /var/tmp: an agent dir (models.json at `server`, settings), a home with secrets
 * (`.ssh/id_rsa`, `.bashrc`, `.aws/credentials`), and a work folder that is a git repository with
 * one commit. Owned by `uid` when given.
 */
export function makeTree(server: LlmServer, settings: Record<string, unknown>, uid?: number): SandboxTree {
	const root = mkdtempSync("/var/tmp/atomic-sandbox-");
	trees.push(root);
	chmodSync(root, 0o755);
	const tree = { root, agentDir: join(root, "agent"), home: join(root, "home"), work: join(root, "work") };
	for (const dir of [tree.agentDir, join(tree.home, ".ssh"), join(tree.home, ".aws"), tree.work]) {
		mkdirSync(dir, { recursive: true });
	}
	writeFileSync(join(tree.agentDir, "models.json"), JSON.stringify({ providers: testProviders(server) }));
	writeFileSync(join(tree.agentDir, "settings.json"), JSON.stringify({ retry: { enabled: false }, ...settings }));
	writeFileSync(join(tree.agentDir, "auth.json"), JSON.stringify({ mock: { type: "api_key", key: "auth-secret" } }));
	writeFileSync(join(tree.home, ".ssh", "id_rsa"), "PRIVATE-KEY-MATERIAL\n");
	writeFileSync(join(tree.home, ".aws", "credentials"), "AWS-SECRET\n");
	writeFileSync(join(tree.home, ".bashrc"), "# the user's bashrc\n");
	writeFileSync(join(tree.work, "README.md"), "hello\n");
	git(tree.work, "init", "-q");
	git(tree.work, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".");
	git(tree.work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start");
	if (uid !== undefined) chownTree(root, uid);
	return tree;
}

export interface StartSandboxed {
	args?: string[];
	env?: Record<string, string>;
	uid?: number;
}

/** Starts `atomic --mode rpc` in `tree.work` (as `uid` when given) and waits for `ready`. */
export async function startSandboxed(tree: SandboxTree, options: StartSandboxed = {}): Promise<RpcAgent> {
	const launcher =
		options.uid === undefined
			? undefined
			: ["setpriv", `--reuid=${options.uid}`, `--regid=${options.uid}`, "--clear-groups"];
	const agent = new RpcAgent({
		args: ["--no-session", "--model", "mock/mock-model", ...(options.args ?? [])],
		agentDir: tree.agentDir,
		home: tree.home,
		cwd: tree.work,
		env: {
			ANTHROPIC_API_KEY: SECRET_KEY,
			GIT_AUTHOR_NAME: "t",
			GIT_AUTHOR_EMAIL: "t@t",
			GIT_COMMITTER_NAME: "t",
			GIT_COMMITTER_EMAIL: "t@t",
			...options.env,
		},
		launcher,
		cli: options.uid === undefined ? undefined : cliFor(options.uid),
	});
	agents.push(agent);
	await agent.waitForEvent("ready", () => true, 0, 20_000);
	return agent;
}

export interface ToolOutcome {
	text: string;
	isError: boolean;
	details: Record<string, unknown> | undefined;
	end: RpcRecord;
}

/** Makes the model call `tool` with `args` once, runs the prompt to its end, and returns the result. */
export async function callTool(
	agent: RpcAgent,
	server: LlmServer,
	tool: string,
	args: Record<string, unknown>,
): Promise<ToolOutcome> {
	server.enqueue(toolReply(tool, args), textReply("done"));
	const start = agent.mark();
	const response = await agent.request({ type: "prompt", message: `call ${tool}` });
	expect(response.success, String(response.error)).toBe(true);
	await agent.waitFor((record) => record.type === "agent_settled", { start, timeout: 30_000 });
	const end = agent.since(start, "tool_execution_end")[0];
	if (!end) throw new Error("no tool_execution_end");
	const result = end.result as { content: { text?: string }[]; details?: Record<string, unknown> };
	return {
		text: result.content.map((block) => block.text ?? "").join(""),
		isError: end.isError === true,
		details: result.details,
		end,
	};
}

/** Runs one bash command through the model. */
export function bash(agent: RpcAgent, server: LlmServer, command: string, extra: Record<string, unknown> = {}) {
	return callTool(agent, server, "bash", { command, ...extra });
}
