import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI } from "./support/rpc-process.js";

// The SDK's public surface is the explicit list in src/index.ts, and docs/sdk.md ("What the package
// exports") names exactly it: values as the built entry gives them at run time, types from the source.

/** The names docs/sdk.md lists under "What the package exports", by kind. */
function documented(): { values: string[]; types: string[] } {
	const doc = readFileSync("docs/sdk.md", "utf8");
	const start = doc.indexOf("## What the package exports");
	const end = doc.indexOf("\n## ", start + 1);
	expect(start).toBeGreaterThan(-1);
	const section = doc.slice(start, end === -1 ? undefined : end);
	const listed = (kind: string) =>
		[...section.matchAll(new RegExp(`^- ${kind}: (.*)$`, "gm"))].flatMap((line) =>
			[...(line[1] ?? "").matchAll(/`([^`]+)`/g)].map((name) => name[1] ?? ""),
		);
	return { values: listed("values").sort(), types: listed("types").sort() };
}

/** Every name src/index.ts exports (it re-exports only, each name listed). */
function sourceExports(): string[] {
	const source = readFileSync("src/index.ts", "utf8");
	expect(source).not.toMatch(/export\s+(type\s+)?\*/);
	const names: string[] = [];
	for (const block of source.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}\s*from/g)) {
		for (const part of (block[1] ?? "").split(",")) {
			const spec = part.trim().replace(/^type\s+/, "");
			if (spec) names.push(spec.split(/\s+as\s+/).at(-1) ?? spec);
		}
	}
	return names.sort();
}

describe("the package's public surface", () => {
	it("is the list docs/sdk.md gives: the built entry's values, and the source's types", () => {
		const entry: Record<string, unknown> = createRequire(import.meta.url)(join(dirname(CLI), "index.js"));
		const { values, types } = documented();
		expect(Object.keys(entry).sort()).toEqual(values);
		const all = sourceExports();
		expect(all.filter((name) => !values.includes(name))).toEqual(types);
		expect(new Set(all).size).toBe(all.length);
	});

	it("does not expose the idle preload's or the connection pool's workings", () => {
		const entry: Record<string, unknown> = createRequire(import.meta.url)(join(dirname(CLI), "index.js"));
		for (const name of ["preconnectProvider", "canPreconnect", "preloadProvider", "isKnownApi", "rehearseModel"])
			expect(entry[name]).toBeUndefined();
	});
});
