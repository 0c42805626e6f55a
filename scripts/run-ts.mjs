// Runs a TypeScript entry (bench, demo): bundles it with esbuild into a temporary ESM file, then imports
// it. Usage: node scripts/run-ts.mjs bench/session-open.bench.ts [args...]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

const entry = process.argv[2];
if (!entry) {
	console.error("usage: node scripts/run-ts.mjs <entry.ts> [args...]");
	process.exit(2);
}
const outDir = mkdtempSync(join(tmpdir(), "atomic-bench-"));
const outfile = join(outDir, `${basename(entry, ".ts")}.mjs`);
try {
	await build({
		entryPoints: [resolve(entry)],
		outfile,
		bundle: true,
		platform: "node",
		format: "esm",
		target: "node20",
		logLevel: "warning",
	});
	process.argv.splice(2, 1);
	await import(pathToFileURL(outfile).href);
} finally {
	rmSync(outDir, { recursive: true, force: true });
}
