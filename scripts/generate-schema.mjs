// Writes docs/rpc-schema.json, the JSON Schema of the RPC protocol, from the TypeBox schemas in
// src/rpc/protocol/: bundles schema-document.ts with esbuild into a temporary ESM file, imports
// it and writes what rpcSchemaText() returns. `--check` writes nothing and exits 1 when the file
// is out of date.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const target = join(root, "docs", "rpc-schema.json");
const outDir = mkdtempSync(join(tmpdir(), "atomic-schema-"));
let text;
try {
	const outfile = join(outDir, "schema-document.mjs");
	await build({
		entryPoints: [join(root, "src", "rpc", "protocol", "schema-document.ts")],
		outfile,
		bundle: true,
		platform: "node",
		format: "esm",
		target: "node20",
		logLevel: "warning",
	});
	const { rpcSchemaText } = await import(pathToFileURL(outfile).href);
	text = rpcSchemaText();
} finally {
	rmSync(outDir, { recursive: true, force: true });
}

if (process.argv.includes("--check")) {
	let current = "";
	try {
		current = readFileSync(target, "utf8");
	} catch (error) {
		if (error?.code !== "ENOENT") throw error;
	}
	if (current !== text) {
		console.error("docs/rpc-schema.json is out of date: run `npm run schema`");
		process.exit(1);
	}
} else {
	writeFileSync(target, text);
	console.log(`wrote ${target}`);
}
