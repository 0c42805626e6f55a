// Builds dist/ with rolldown: a CommonJS bundle per entry point (the CLI, the SDK, the search worker), code-split,
// and the code cache of the CLI's chunks (src/cli/compile-cache.ts; docs/architecture.md "The bundle").
//
// Start-up loads one big file besides the CLI's own: every module that RPC start-up imports (STARTUP_ROOTS
// and what they import, statically) goes into one chunk, `chunks/startup-*.js`. Left to itself the
// bundler makes a chunk for each set of lazily loaded parts that share a module, and start-up paid
// for resolving and linking some 40 files. Modules the search worker also imports stay out of it, so
// a worker does not load start-up's code; so does what `atomic --version` and `--help` run.
//
// Each provider SDK is loaded only on the first request to its API (or by the idle preload): the
// Anthropic and OpenAI SDKs are bundled into their provider's lazily imported chunk; @google/genai
// and jiti stay external. Type declarations are emitted by tsc into dist/types. Files are replaced
// in place (stale chunks removed afterwards), so a CLI started while a rebuild runs never finds
// dist/ missing. dist/package.json says the files are CommonJS (the package itself is ESM: its
// sources, tests and scripts).
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { build } from "rolldown";
import { writeCompileCache } from "./compile-cache.mjs";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
// ws requires these optional native helpers only when they are installed.
const external = [/^@google\/genai(\/|$)/, /^jiti(\/|$)/, /^bufferutil$/, /^utf-8-validate$/];
const ENTRIES = { cli: "src/cli/bin.ts", index: "src/index.ts", "search-worker": "src/tools/search/worker.ts" };
/** What src/cli/main.ts imports to start RPC mode, once it has parsed the arguments. */
const STARTUP_ROOTS = ["src/rpc/rpc-mode.ts", "src/runtime/facade/create-agent-session.ts"];

/** Each module's static imports, as the bundler parsed them. */
const imports = new Map();
const moduleGraph = {
	name: "atomic-module-graph",
	moduleParsed(info) {
		imports.set(info.id, info.importedIds);
	},
};

function staticClosure(roots) {
	const seen = new Set();
	const pending = roots.map((root) => resolve(root));
	while (pending.length > 0) {
		const id = pending.pop();
		if (seen.has(id)) continue;
		seen.add(id);
		for (const next of imports.get(id) ?? []) pending.push(next);
	}
	return seen;
}

/** The modules of the two start-up chunks, computed once the whole graph is parsed. */
let chunks;
function startupChunks() {
	if (!chunks) {
		const cli = staticClosure([ENTRIES.cli, "src/cli/main.ts"]);
		const worker = staticClosure([ENTRIES["search-worker"]]);
		const modules = [...staticClosure(STARTUP_ROOTS)].filter((id) => !cli.has(id));
		chunks = {
			startup: new Set(modules.filter((id) => !worker.has(id))),
			search: new Set(modules.filter((id) => worker.has(id))),
		};
	}
	return chunks;
}

/**
 * The web page of `atomic serve` (web/): dist/web/index.html, app.js (one browser bundle) and
 * app.css (the session export's styles, then the page's own). Nothing of it is in the CLI's
 * bundles: the server reads these files when a browser asks for them.
 */
async function buildWebPage() {
	mkdirSync("dist/web", { recursive: true });
	const page = await build({
		input: "web/src/main.ts",
		platform: "browser",
		logLevel: "warn",
		transform: { target: "es2022" },
		output: { file: "dist/web/app.js", format: "iife", minify: true, comments: false },
	});
	if (!page.output.some((file) => file.fileName === "app.js")) throw new Error("the web page's bundle was not written");
	const styles = await build({
		input: "src/export/styles.ts",
		platform: "neutral",
		logLevel: "warn",
		write: false,
		output: { format: "esm" },
	});
	const code = styles.output.find((file) => file.type === "chunk")?.code ?? "";
	const { PAGE_CSS } = await import(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`);
	writeFileSync("dist/web/app.css", `${PAGE_CSS}\n${readFileSync("web/app.css", "utf8")}`);
	writeFileSync("dist/web/index.html", readFileSync("web/index.html", "utf8"));
}

/** Chunks that import each other would run modules before their dependencies: the build stops instead. */
function failOnChunkCycle(outputs) {
	const importsOf = new Map(outputs.map((chunk) => [chunk.fileName, chunk.imports]));
	const state = new Map(); // fileName → "visiting" | "done"
	const visit = (name, path) => {
		if (state.get(name) === "done") return;
		if (state.get(name) === "visiting") throw new Error(`chunks import each other: ${[...path, name].join(" → ")}`);
		state.set(name, "visiting");
		for (const next of importsOf.get(name) ?? []) if (importsOf.has(next)) visit(next, [...path, name]);
		state.set(name, "done");
	};
	for (const name of importsOf.keys()) visit(name, []);
}

const result = await build({
	input: ENTRIES,
	platform: "node",
	external,
	plugins: [moduleGraph],
	// Lets the SDK entry share its chunk with modules it does not export (required by the groups).
	preserveEntrySignatures: "allow-extension",
	transform: { target: "node20", define: { __ATOMIC_VERSION__: JSON.stringify(pkg.version) } },
	// main.ts imports parts of start-up lazily so that --version and --help need none of it; the
	// bundler notes that the SDK entry imports the same modules statically, which is intended.
	checks: { ineffectiveDynamicImport: false },
	logLevel: "warn",
	output: {
		dir: "dist",
		format: "cjs",
		entryFileNames: "[name].js",
		chunkFileNames: "chunks/[name]-[hash].js",
		banner: (chunk) => (chunk.fileName === "cli.js" ? "#!/usr/bin/env node" : ""),
		codeSplitting: {
			// A group's dependencies stay where they are: what --version and the worker import must
			// not be pulled into the start-up chunk. The check below makes sure no chunks import each other.
			includeDependenciesRecursively: false,
			groups: [
				{ name: "startup", test: (id) => startupChunks().startup.has(id) },
				{ name: "search", test: (id) => startupChunks().search.has(id) },
			],
		},
		sourcemap: true,
		comments: false,
		charset: "ascii",
	},
});
chmodSync("dist/cli.js", 0o755);
failOnChunkCycle(result.output.filter((file) => file.type === "chunk"));
writeFileSync("dist/package.json", `${JSON.stringify({ type: "commonjs" })}\n`);

const produced = new Set(result.output.map((file) => file.fileName));
for (const entry of existsSync("dist/chunks") ? readdirSync("dist/chunks") : []) {
	const path = `chunks/${entry}`;
	if (!produced.has(path)) rmSync(join("dist", path), { force: true });
}

// The code cache of the CLI's chunks (src/cli/compile-cache.ts).
await writeCompileCache(result.output, produced);

await buildWebPage();

if (!process.argv.includes("--no-types")) {
	rmSync("dist/types", { recursive: true, force: true });
	const tsc = spawnSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], {
		stdio: "inherit",
	});
	if (tsc.status !== 0) process.exit(tsc.status ?? 1);
}
