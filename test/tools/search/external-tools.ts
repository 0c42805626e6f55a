import { spawnSync } from "node:child_process";
import { describe, it } from "vitest";

/**
 * The reference programs the search tests compare Atomic with. Debian names fd `fdfind`.
 * CI installs them (.ci/run); a local run without them skips the comparisons and says so.
 */
export type ReferenceTool = "rg" | "fdfind" | "git";

const available = new Map<ReferenceTool, boolean>();

/** Whether `tool --version` runs. */
export function onPath(tool: ReferenceTool): boolean {
	let known = available.get(tool);
	if (known === undefined) {
		const result = spawnSync(tool, ["--version"], { stdio: "ignore" });
		known = result.error === undefined && result.status === 0;
		available.set(tool, known);
	}
	return known;
}

/** ATOMIC_REQUIRE_SYSTEM_TOOLS=1 (set by .ci/run): a missing reference program is a failure rather than a skip. */
export function inCi(): boolean {
	return process.env.ATOMIC_REQUIRE_SYSTEM_TOOLS === "1";
}

/**
 * `describe` that needs the reference programs `tools`. When one is missing: in CI (ATOMIC_REQUIRE_SYSTEM_TOOLS=1) the
 * suite is one failing test naming it; elsewhere the suite is skipped with a warning naming it.
 */
export function describeWithTools(name: string, tools: readonly ReferenceTool[], body: () => void): void {
	const missing = tools.filter((tool) => !onPath(tool));
	if (missing.length === 0) {
		describe(name, body);
		return;
	}
	const what = `${missing.join(" and ")} ${missing.length === 1 ? "is" : "are"} not on PATH`;
	if (inCi()) {
		describe(name, () => {
			it(`needs ${missing.join(", ")}`, () => {
				throw new Error(`${what}: CI installs ripgrep, fd-find and git (.ci/run); install them to run "${name}"`);
			});
		});
		return;
	}
	console.warn(`SKIPPED "${name}": ${what} (install ripgrep / fd-find / git to run it; in CI this fails)`);
	describe.skip(name, body);
}

/** The environment of a reference program: no system git config, no ripgrep config file. */
function referenceEnvironment(): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: "1" };
	delete env.RIPGREP_CONFIG_PATH;
	return env;
}

/** Runs a reference program in `cwd`; its stdout. Exit 1 with no output (rg/git: nothing found) is not an error. */
export function runTool(tool: ReferenceTool, args: readonly string[], cwd: string, input?: string): string {
	const result = spawnSync(tool, args, {
		cwd,
		input,
		// Without input, stdin is /dev/null: rg searches a piped stdin instead of the folder.
		stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
		encoding: "utf8",
		maxBuffer: 256 * 1024 * 1024,
		env: referenceEnvironment(),
	});
	if (result.error) throw new Error(`${tool} ${args.join(" ")} could not run: ${result.error.message}`);
	if (result.status !== 0 && !(result.status === 1 && result.stdout === "")) {
		throw new Error(`${tool} ${args.join(" ")} exited with ${result.status}: ${result.stderr}`);
	}
	return result.stdout;
}

/** The NUL- or newline-separated entries of a program's output. */
export function entriesOf(output: string, separator = "\n"): string[] {
	return output.split(separator).filter((entry) => entry !== "");
}

/** fd prints paths relative to its working directory; some versions prefix `./` and end folders with `/`. */
export function fdPath(path: string): string {
	const trimmed = path.startsWith("./") ? path.slice(2) : path;
	return trimmed.endsWith("/") ? trimmed.slice(0, -1) : trimmed;
}
