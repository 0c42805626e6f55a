/**
 * Launching the test MCP server (mcp-stdio-server.ts) as a stdio process: the entry is bundled
 * once per test process with esbuild into a temporary .mjs file that plain `node` runs.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "esbuild";

export interface StdioServerOptions {
	pidFile?: string;
	eventLog?: string;
	startDelayMs?: number;
	gateFile?: string;
	stubborn?: boolean;
	stderr?: string;
}

let built: Promise<string> | undefined;

/** The bundled server script (built on first use, removed when the test process exits). */
export function stdioServerScript(): Promise<string> {
	built ??= (async () => {
		const dir = mkdtempSync(join(tmpdir(), "atomic-mcp-server-"));
		process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
		const outfile = join(dir, "mcp-stdio-server.mjs");
		await build({
			entryPoints: [resolve("test/support/mcp-stdio-server.ts")],
			outfile,
			bundle: true,
			platform: "node",
			format: "esm",
			target: "node20",
			logLevel: "warning",
			banner: { js: 'import { createRequire } from "node:module"; const require = createRequire(import.meta.url);' },
		});
		return outfile;
	})();
	return built;
}

/** A `mcpServers` entry that starts the test server over stdio. */
export async function stdioServerEntry(options: StdioServerOptions = {}): Promise<{ command: string; args: string[] }> {
	return { command: process.execPath, args: [await stdioServerScript(), JSON.stringify(options)] };
}

/** Whether a process with this pid exists (a zombie counts as gone once its parent reaped it). */
export function processExists(pid: number): boolean {
	try {
		process.kill(pid, 0);
	} catch (error) {
		if (error instanceof Error && "code" in error && error.code === "ESRCH") return false;
		throw error;
	}
	// A zombie (exited, not yet reaped) is not running.
	try {
		return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
	} catch (error) {
		if (error instanceof Error && "code" in error && error.code === "ENOENT") return false;
		throw error;
	}
}

/** The events a stdio test server appended to its event log so far. */
export function readEventLog(path: string): Record<string, unknown>[] {
	let content: string;
	try {
		content = readFileSync(path, "utf8");
	} catch (error) {
		if (error instanceof Error && "code" in error && error.code === "ENOENT") return [];
		throw error;
	}
	return content
		.split("\n")
		.filter(Boolean)
		.map((line) => JSON.parse(line) as Record<string, unknown>);
}
