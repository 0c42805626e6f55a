import { cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** A small deterministic generator (mulberry32), so that every run plants the same tree. */
function random(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"];
const NAMES = ["Render", "Parse", "Walk", "Search", "Match", "Build", "Cache", "Stream"];

/** Packages of the project's own node_modules copied into the tree: real-world files, long minified lines. */
const COPIED_PACKAGES = ["diff", "marked", "picomatch", "ignore", "@types/picomatch"];

/** Lines that the parity queries look for, mixed with filler. */
function sourceLine(next: () => number, index: number): string {
	const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
	const name = pick(NAMES);
	const word = pick(WORDS);
	switch (Math.floor(next() * 40)) {
		case 0:
			return `export interface ${name}Options {`;
		case 1:
			return `interface  ${name}Options extends Base${name} {`;
		case 2:
			return `\tconst ${word} = needle${index}; // ${pick(["Needle", "NEEDLE", "needle"])}`;
		case 3:
			return `function ${word}(${pick(WORDS)}: string): ${name}Options | undefined {`;
		case 4:
			return `\treturn a.b(c) + axb(c); // ${word}`;
		case 5:
			return `// ünïcödé ${word} 🎉 ${name}`;
		case 6:
			if (next() > 0.2) return "";
			return `const long${index} = "${"x".repeat(480 + Math.floor(next() * 300))} needle ${word}";`;
		case 7:
		case 8:
			return "";
		default:
			return `\t${word}.${pick(WORDS)}(${Math.floor(next() * 1000)});`;
	}
}

function sourceFile(next: () => number, crlf: boolean): string {
	const count = 5 + Math.floor(next() * 25);
	const lines = Array.from({ length: count }, (_, index) => sourceLine(next, index));
	return `${lines.join(crlf ? "\r\n" : "\n")}${crlf ? "\r\n" : "\n"}`;
}

/** The project's node_modules, when this checkout has it. */
function projectModules(): string | undefined {
	const modules = resolve(import.meta.dirname, "../../../node_modules");
	return existsSync(modules) ? modules : undefined;
}

/**
 * Plants a tree of a few hundred generated files (TypeScript-like sources, declarations, JSON and
 * Markdown, some with CRLF endings or lines over 500 characters), hidden files, a `.gitignore`
 * whose ignored files hold matches too, a binary file, and copies of a few packages of the project's
 * node_modules under node_modules/ (not ignored here). Expects `root` to be a git repository.
 */
export function generateTree(root: string): void {
	const next = random(20261204);
	const write = (path: string, content: string | Buffer): void => {
		const absolute = join(root, path);
		mkdirSync(dirname(absolute), { recursive: true });
		writeFileSync(absolute, content);
	};
	write(".gitignore", "dist/\n*.log\ncoverage/\n");
	const extensions = [".ts", ".ts", ".ts", ".d.ts", ".js", ".json", ".md"];
	for (let index = 0; index < 240; index++) {
		const depth = 1 + Math.floor(next() * 3);
		const folders = Array.from({ length: depth }, () => WORDS[Math.floor(next() * 4)]);
		const extension = extensions[Math.floor(next() * extensions.length)];
		const path = `src/${folders.join("/")}/file-${index}${extension}`;
		write(path, sourceFile(next, index % 17 === 0));
	}
	write(".config/tool.json", '{ "needle": true, "interface": "RenderOptions" }\n');
	write(".github/workflows/ci.yml", "# needle in a hidden folder\n");
	write("dist/bundle.js", "interface RenderOptions { needle }\n");
	write("dist/types.d.ts", "export interface BuildOptions {}\n");
	write("debug.log", "needle in a log\n");
	write("coverage/lcov.info", "needle\n");
	write("assets/blob.bin", Buffer.from("needle\u0000interface RenderOptions\n"));
	write("package.json", '{ "name": "generated" }\n');
	const modules = projectModules();
	if (modules) {
		for (const name of COPIED_PACKAGES) {
			const from = join(modules, name);
			if (existsSync(from)) cpSync(from, join(root, "node_modules", name), { recursive: true });
		}
	}
}
