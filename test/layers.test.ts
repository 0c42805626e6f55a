import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/** Which layers each layer may import (docs: ../shared/design/architecture.md, "The house"). */
const ALLOWED: Record<string, string[]> = {
	platform: [],
	sandbox: [],
	llm: [],
	agent: ["llm"],
	tools: ["agent", "llm", "sandbox"],
	session: ["llm", "agent"],
	compaction: ["llm", "agent", "session"],
	permissions: ["agent"],
	resources: ["llm", "agent", "session"],
	extensions: ["llm", "agent", "tools", "session", "compaction", "resources"],
	mcp: ["llm", "agent"],
	export: ["llm", "agent", "session"],
	runtime: [
		"llm",
		"agent",
		"tools",
		"session",
		"compaction",
		"permissions",
		"sandbox",
		"mcp",
		"resources",
		"extensions",
		"export",
	],
	rpc: [
		"llm",
		"agent",
		"tools",
		"session",
		"compaction",
		"permissions",
		"sandbox",
		"mcp",
		"resources",
		"extensions",
		"export",
		"runtime",
	],
	cli: [
		"llm",
		"agent",
		"tools",
		"session",
		"compaction",
		"permissions",
		"sandbox",
		"mcp",
		"resources",
		"extensions",
		"export",
		"runtime",
		"rpc",
		"acp",
		"server",
	],
	server: [
		"llm",
		"agent",
		"tools",
		"sandbox",
		"session",
		"compaction",
		"permissions",
		"mcp",
		"resources",
		"extensions",
		"export",
		"runtime",
		"rpc",
	],
	acp: [
		"llm",
		"agent",
		"tools",
		"session",
		"compaction",
		"permissions",
		"sandbox",
		"mcp",
		"resources",
		"extensions",
		"export",
		"runtime",
	],
};

/**
 * Layers every other layer may import: `platform` holds the few file-system primitives that must
 * be the same everywhere (opening only regular files, creating directories without looping).
 */
const BOTTOM = ["platform"];

const SRC = resolve("src");

function sourceFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) return sourceFiles(path);
		return /\.(ts|mts)$/.test(entry.name) ? [path] : [];
	});
}

/** Every module specifier a file imports or re-exports, static or dynamic. */
function importsOf(source: string): string[] {
	const specifiers: string[] = [];
	const patterns = [
		/(?:^|[\s;])(?:import|export)\s[^'"]*?\sfrom\s*["']([^"']+)["']/g,
		/(?:^|[\s;])import\s*["']([^"']+)["']/g,
		/\bimport\(\s*["']([^"']+)["']\s*\)/g,
	];
	for (const pattern of patterns) {
		for (const match of source.matchAll(pattern)) specifiers.push(match[1] as string);
	}
	return specifiers;
}

function layerOf(file: string): string | undefined {
	const rel = relative(SRC, file).split(/[\\/]/);
	return rel.length > 1 ? rel[0] : undefined;
}

describe("layer boundaries", () => {
	const files = sourceFiles(SRC);

	it("knows every folder under src/", () => {
		const layers = new Set(files.map(layerOf).filter((layer): layer is string => layer !== undefined));
		for (const layer of layers) expect(Object.keys(ALLOWED), `unknown layer src/${layer}`).toContain(layer);
	});

	it("no file imports from a layer above its own", () => {
		const violations: string[] = [];
		for (const file of files) {
			const own = layerOf(file);
			if (!own) continue;
			for (const specifier of importsOf(readFileSync(file, "utf8"))) {
				if (!specifier.startsWith(".")) continue;
				const target = layerOf(resolve(dirname(file), specifier));
				if (!target || target === own) {
					if (!target) violations.push(`${relative(SRC, file)} imports ${specifier} (outside any layer)`);
					continue;
				}
				if (!ALLOWED[own]?.includes(target) && !(BOTTOM.includes(target) && own in ALLOWED))
					violations.push(`${relative(SRC, file)} (${own}) imports ${specifier} (${target})`);
			}
		}
		expect(violations).toEqual([]);
	});

	it("no files import each other, directly or in a ring (type imports count)", () => {
		const graph = new Map<string, string[]>();
		for (const file of files) {
			const targets = importsOf(readFileSync(file, "utf8"))
				.filter((specifier) => specifier.startsWith("."))
				.map((specifier) => resolve(dirname(file), specifier).replace(/\.js$/, ".ts"))
				.filter((target) => existsSync(target));
			graph.set(file, targets);
		}
		expect(importRings(graph).map((ring) => ring.map((file) => relative(SRC, file)).join(" → "))).toEqual([]);
	});

	it("the import scanner sees static, dynamic and re-exports", () => {
		const sample = `import { a } from "../llm/x.js";\nexport * from "../agent/y.js";\nconst m = await import("../rpc/z.js");\nimport "../tools/side.js";`;
		expect(importsOf(sample)).toEqual(["../llm/x.js", "../agent/y.js", "../tools/side.js", "../rpc/z.js"]);
	});
});

/** The strongly connected groups of more than one file (Tarjan's algorithm): each is an import cycle. */
function importRings(graph: ReadonlyMap<string, readonly string[]>): string[][] {
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const rings: string[][] = [];
	let next = 0;
	const visit = (file: string): void => {
		index.set(file, next);
		low.set(file, next);
		next++;
		stack.push(file);
		onStack.add(file);
		for (const target of graph.get(file) ?? []) {
			if (!index.has(target)) {
				visit(target);
				low.set(file, Math.min(low.get(file) ?? 0, low.get(target) ?? 0));
			} else if (onStack.has(target)) low.set(file, Math.min(low.get(file) ?? 0, index.get(target) ?? 0));
		}
		if (low.get(file) !== index.get(file)) return;
		const ring: string[] = [];
		for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
			onStack.delete(member);
			ring.push(member);
			if (member === file) break;
		}
		if (ring.length > 1) rings.push(ring.sort());
	};
	for (const file of graph.keys()) if (!index.has(file)) visit(file);
	return rings;
}
