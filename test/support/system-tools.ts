import { spawnSync } from "node:child_process";

/** CI sets ATOMIC_REQUIRE_SYSTEM_TOOLS=1 (.ci/run): a missing tool then fails its tests instead of skipping them. */
const required = process.env.ATOMIC_REQUIRE_SYSTEM_TOOLS === "1";

/** The Debian package each tool comes from (.ci/run installs them). */
const PACKAGES: Record<string, string> = {
	rg: "ripgrep",
	fd: "fd-find",
	fdfind: "fd-find",
	git: "git",
	bwrap: "bubblewrap",
	chromium: "chromium",
};

/**
 * The first of `names` that runs from PATH (`fdfind`, then `fd`), or undefined when none does. Tests
 * that need it use `describe.skipIf(!tool)`. A local run without it says loudly on stderr which
 * tests it skips; under CI a missing tool is an error, so the file fails.
 */
export function systemTool(skipped: string, ...names: string[]): string | undefined {
	for (const name of names) if (!spawnSync(name, ["--version"], { stdio: "ignore" }).error) return name;
	const packages = [...new Set(names.map((name) => PACKAGES[name] ?? name))].join(" ");
	const message = `${names.join(" / ")} not found on PATH: ${skipped} (Debian: apt-get install ${packages})`;
	if (required) throw new Error(message);
	process.stderr.write(`\n*** SKIPPED: ${message}\n\n`);
	return undefined;
}
