import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { atomicEntry, findPackageRoot, PACKAGE_ALIASES, typeboxAliases } from "../../src/extensions/package-paths.js";

const ROOT = resolve(".");

describe("package paths for extension aliases", () => {
	it("finds Atomic's root and picks src/index.ts from the sources, dist/index.js from the build", () => {
		expect(findPackageRoot(join(ROOT, "src", "extensions"), "atomic-agent")).toBe(ROOT);
		expect(atomicEntry(join(ROOT, "src", "extensions", "load.ts"))).toBe(join(ROOT, "src", "index.ts"));
		expect(atomicEntry(join(ROOT, "dist", "chunks", "load-abc.js"))).toBe(join(ROOT, "dist", "index.js"));
		expect(atomicEntry(join(ROOT, "dist", "cli.js"))).toBe(join(ROOT, "dist", "index.js"));
		expect(atomicEntry("/nowhere/at/all.js")).toBeUndefined();
		expect(PACKAGE_ALIASES).toEqual(["atomic-agent"]);
	});

	it("maps typebox and its exported subpaths to files of Atomic's copy", () => {
		const aliases = typeboxAliases();
		const typebox = join(ROOT, "node_modules", "typebox");
		expect(aliases.typebox).toBe(join(typebox, "build", "index.mjs"));
		expect(aliases["typebox/value"]).toBe(join(typebox, "build", "value", "index.mjs"));
		expect(aliases["typebox/compile"]).toBe(join(typebox, "build", "compile", "index.mjs"));
		expect(aliases["@sinclair/typebox"]).toBe(aliases.typebox);
		expect(aliases["@sinclair/typebox/value"]).toBe(aliases["typebox/value"]);
	});
});
