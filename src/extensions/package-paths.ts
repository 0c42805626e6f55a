import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The names extensions may import Atomic's package entry under. pi's package names resolve to
 * modules built for pi extensions instead (compat/virtual-modules.ts).
 */
export const PACKAGE_ALIASES = ["atomic-agent"];

function packageName(dir: string): string | undefined {
	const file = join(dir, "package.json");
	if (!existsSync(file)) return undefined;
	const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
	return typeof parsed === "object" && parsed !== null && "name" in parsed && typeof parsed.name === "string"
		? parsed.name
		: undefined;
}

/** The nearest directory at or above `start` whose package.json is named `name`. */
export function findPackageRoot(start: string, name: string): string | undefined {
	for (let dir = start; ; dir = dirname(dir)) {
		if (packageName(dir) === name) return dir;
		if (dirname(dir) === dir) return undefined;
	}
}

/**
 * Atomic's package entry for extensions: `src/index.ts` when this module runs from the sources
 * (tests), else the built `dist/index.js`. Undefined when the package root cannot be found.
 */
export function atomicEntry(moduleFile: string = fileURLToPath(import.meta.url)): string | undefined {
	const root = findPackageRoot(dirname(moduleFile), "atomic-agent");
	if (!root) return undefined;
	const source = join(root, "src", "index.ts");
	if (moduleFile.startsWith(join(root, "src") + sep) && existsSync(source)) return source;
	return join(root, "dist", "index.js");
}

/** Where each `typebox` specifier (the package and its exported subpaths) lives in Atomic's own copy. */
export function typeboxAliases(moduleUrl: string = import.meta.url): Record<string, string> {
	let main: string;
	try {
		main = createRequire(moduleUrl).resolve("typebox");
	} catch (error) {
		throw new Error("Atomic's typebox dependency cannot be found", { cause: error });
	}
	const root = findPackageRoot(dirname(main), "typebox");
	if (!root) return { typebox: main };
	const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
		exports?: Record<string, unknown>;
	};
	const aliases: Record<string, string> = {};
	for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
		const conditions = typeof target === "object" && target !== null ? (target as Record<string, unknown>) : {};
		const file = typeof target === "string" ? target : (conditions.import ?? conditions.default);
		if (typeof file !== "string" || subpath.includes("*")) continue;
		aliases[subpath === "." ? "typebox" : `typebox/${subpath.slice(2)}`] = join(root, file);
	}
	aliases.typebox ??= main;
	// The TypeBox 0.x package name extensions written for older pi versions import.
	for (const [name, file] of Object.entries(aliases)) aliases[name.replace(/^typebox/, "@sinclair/typebox")] = file;
	return aliases;
}

/** The jiti aliases every extension is loaded with. */
export function extensionAliases(): Record<string, string> {
	const aliases = typeboxAliases();
	const entry = atomicEntry();
	if (entry) for (const name of PACKAGE_ALIASES) aliases[name] = entry;
	return aliases;
}
