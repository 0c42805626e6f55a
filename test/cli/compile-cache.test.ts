import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, makeAgentDir } from "../support/rpc-process.js";

const DIST = dirname(CLI);
const CACHE = join(DIST, "compile-cache", `${process.versions.v8}-${process.arch}`);
/** Preloaded into the CLI: logs, at exit, each script compiled with cached data and whether V8 took it. */
const RECORDER = `
const vm = require("node:vm");
const { appendFileSync } = require("node:fs");
const Script = vm.Script;
const seen = [];
vm.Script = class extends Script {
	constructor(code, options) {
		super(code, options);
		if (options && options.cachedData) seen.push({ file: options.filename, rejected: this.cachedDataRejected });
	}
};
process.on("exit", () => appendFileSync(process.env.RECORD_TO, JSON.stringify(seen)));
`;

const cleanups: (() => void)[] = [];
afterEach(() => {
	for (const cleanup of cleanups.splice(0)) cleanup();
});

function scratch(): string {
	const dir = mkdtempSync(join(tmpdir(), "atomic-compile-cache-"));
	cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
	return dir;
}

/** Runs `cli` to its first get_state response and its exit: the response and what the recorder saw. */
async function getState(cli: string): Promise<{ answered: boolean; compiled: { file: string; rejected: boolean }[] }> {
	const tree = makeAgentDir();
	cleanups.push(() => tree.cleanup());
	const dir = scratch();
	const recorder = join(dir, "recorder.cjs");
	const record = join(dir, "record.json");
	writeFileSync(recorder, RECORDER);
	const child = spawn(process.execPath, ["--require", recorder, cli, "--mode", "rpc", "--no-session"], {
		cwd: tree.work,
		env: { PATH: process.env.PATH, HOME: tree.home, ATOMIC_CODING_AGENT_DIR: tree.agentDir, RECORD_TO: record },
		stdio: ["pipe", "pipe", "pipe"],
	});
	let stdout = "";
	child.stdout.on("data", (chunk: Buffer) => {
		stdout += chunk.toString("utf8");
		if (stdout.includes('"id":"s"')) child.stdin.end();
	});
	child.stdin.write('{"id":"s","type":"get_state"}\n');
	await new Promise((resolve) => child.on("exit", resolve));
	const answered = stdout.split("\n").some((line) => line.includes('"id":"s"') && line.includes('"success":true'));
	return { answered, compiled: JSON.parse(readFileSync(record, "utf8")) };
}

/** A copy of dist/ to damage. */
function distCopy(): string {
	const copy = join(scratch(), "dist");
	cpSync(DIST, copy, {
		recursive: true,
		preserveTimestamps: true,
		filter: (path) => !path.endsWith(".map") && !path.includes("/types"),
	});
	return copy;
}

function startupCache(dist: string): string {
	const dir = join(dist, "compile-cache", `${process.versions.v8}-${process.arch}`);
	const name = readdirSync(dir).find((file) => file.startsWith("startup-"));
	if (!name) throw new Error(`no start-up chunk cache in ${dir}`);
	return join(dir, name);
}

describe("the code cache of the CLI's chunks", () => {
	it("is written by the build and taken by V8 at start-up", async () => {
		expect(readdirSync(CACHE).some((name) => name.startsWith("startup-"))).toBe(true);
		const { answered, compiled } = await getState(CLI);
		expect(answered).toBe(true);
		const startup = compiled.filter(({ file }) => /[/\\]chunks[/\\]startup-[\w-]+\.js$/.test(file));
		expect(startup).toEqual([{ file: expect.any(String), rejected: false }]);
		expect(compiled.every(({ rejected }) => !rejected)).toBe(true);
	});

	it("costs only the compile when V8 rejects a cache file", async () => {
		const dist = distCopy();
		writeFileSync(startupCache(dist), Buffer.from("not a code cache".repeat(64)));
		const { answered, compiled } = await getState(join(dist, "cli.js"));
		expect(answered).toBe(true);
		expect(compiled.filter(({ file }) => file.includes("startup-")).map(({ rejected }) => rejected)).toEqual([true]);
	});

	it("is not used for a chunk changed after its cache was written", async () => {
		const dist = distCopy();
		const cache = startupCache(dist);
		const chunk = join(dist, "chunks", basename(cache, ".bin"));
		const later = new Date(statSync(cache).mtimeMs + 60_000);
		utimesSync(chunk, later, later);
		const { answered, compiled } = await getState(join(dist, "cli.js"));
		expect(answered).toBe(true);
		expect(compiled.filter(({ file }) => file.includes("startup-"))).toEqual([]);
		expect(compiled.length).toBeGreaterThan(0);
	});

	it("is not needed: without cache files the chunks load as usual", async () => {
		const dist = distCopy();
		rmSync(join(dist, "compile-cache"), { recursive: true });
		const { answered, compiled } = await getState(join(dist, "cli.js"));
		expect(answered).toBe(true);
		expect(compiled).toEqual([]);
	});
});
