// Builds dist/: an esbuild bundle per entry point (the CLI, the SDK, the search worker; code-split, ESM). Each provider SDK
// is loaded only on the first request to its API (or by the idle preload): the Anthropic and OpenAI SDKs are bundled
// into their provider's lazily imported chunk, one file to load instead of a hundred modules to resolve and link
// (half the cost of a first prompt that finds them unloaded); @google/genai and jiti stay external. Type declarations are
// emitted by tsc into dist/types. Files are replaced in place (stale chunks removed afterwards),
// so a CLI started while a rebuild runs never finds dist/ missing.
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { build } from "esbuild";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const external = ["@google/genai", "jiti"].flatMap((name) => [name, `${name}/*`]);

const result = await build({
	entryPoints: { cli: "src/cli/main.ts", index: "src/index.ts", "search-worker": "src/tools/search-worker.ts" },
	outdir: "dist",
	bundle: true,
	splitting: true,
	format: "esm",
	platform: "node",
	target: "node20",
	external,
	chunkNames: "chunks/[name]-[hash]",
	// Bundled CommonJS dependencies call require(); ESM output gets one from createRequire.
	banner: {
		js: [
			"#!/usr/bin/env node",
			'import { createRequire as __atomicCreateRequire } from "node:module";',
			"const require = __atomicCreateRequire(import.meta.url);",
		].join("\n"),
	},
	define: { __ATOMIC_VERSION__: JSON.stringify(pkg.version) },
	sourcemap: "linked",
	legalComments: "none",
	logLevel: "warning",
	metafile: true,
});
chmodSync("dist/cli.js", 0o755);

const produced = new Set(Object.keys(result.metafile.outputs).map((path) => relative("dist", path)));
for (const entry of existsSync("dist/chunks") ? readdirSync("dist/chunks") : []) {
	const path = join("chunks", entry);
	if (!produced.has(path)) rmSync(join("dist", path), { force: true });
}

if (!process.argv.includes("--no-types")) {
	rmSync("dist/types", { recursive: true, force: true });
	const tsc = spawnSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], {
		stdio: "inherit",
	});
	if (tsc.status !== 0) process.exit(tsc.status ?? 1);
}
