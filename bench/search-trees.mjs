// The trees the search figures search: a copy of this checkout's node_modules made into a git
// repository with planted ignore cases, and five hard-linked copies of it side by side under one
// root with a .gitignore of its own. Made once per bench run, removed when the bench exits.
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repoDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** In three kept files (a hidden one, one kept by a negation) and in four ignored ones. */
export const RARE_LITERAL = "atomicBenchRareLiteral";
/** The rare literal's kept files: what a correct search finds. */
export const RARE_LITERAL_FILES = ["planted/kept.ts", "planted/kept.tmp", ".hidden-planted.txt"];
/** Matched only in planted/kept.ts; its required literal `interface` is in thousands of files. */
export const RARE_REGEX = "interface\\s+\\w+BenchOptions\\b";
/** A file name found once in the tree. */
export const SINGLE_NAME = "atomic-bench-planted.txt";

function run(command, args, cwd) {
	const result = spawnSync(command, args, { cwd, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
	if (result.error) throw new Error(`${command} could not run: ${result.error.message}`, { cause: result.error });
	if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed: ${result.stderr.trim().slice(-300)}`);
}

function write(root, path, text) {
	const absolute = join(root, path);
	mkdirSync(dirname(absolute), { recursive: true });
	writeFileSync(absolute, text);
}

/** The planted ignore cases: a nested .gitignore with a negation, an ignored folder, a hidden file. */
function plant(root) {
	write(root, ".gitignore", "# planted by the search bench\nignored-folder/\n*.benchignored\n");
	write(root, "planted/.gitignore", "*.tmp\n!kept.tmp\n");
	write(
		root,
		"planted/kept.ts",
		[
			"// planted by the search bench",
			"export interface AtomicBenchOptions {",
			`\tmarker: "${RARE_LITERAL}";`,
			"}",
			"",
		].join("\n"),
	);
	write(root, "planted/kept.tmp", `${RARE_LITERAL} kept by a negation\n`);
	write(root, "planted/dropped.tmp", `${RARE_LITERAL} ignored by planted/.gitignore\n`);
	write(root, "planted/deep/er/atomic-bench-planted.txt", "the single name\n");
	write(root, "ignored-folder/marker.txt", `${RARE_LITERAL} in an ignored folder\ninterface XBenchOptions {}\n`);
	write(root, "x.benchignored", `${RARE_LITERAL} ignored by the root .gitignore\n`);
	write(root, ".hidden-planted.txt", `${RARE_LITERAL} in a hidden file\n`);
}

/** Regular files and their bytes under `root` (each hard link counted where it is). */
function measure(root) {
	let files = 0;
	let bytes = 0;
	const stack = [root];
	while (stack.length > 0) {
		const directory = stack.pop();
		for (const entry of readdirSync(directory, { withFileTypes: true })) {
			const path = join(directory, entry.name);
			if (entry.isDirectory()) {
				if (entry.name !== ".git") stack.push(path);
			} else if (entry.isFile()) {
				files++;
				bytes += lstatSync(path).size;
			}
		}
	}
	return { files, mb: bytes / 1024 / 1024 };
}

let made;

/** "16,200 files, 314 MB" */
export function describeTree(tree) {
	return `${tree.files.toLocaleString("en")} files, ${tree.mb.toFixed(0)} MB`;
}

/**
 * Makes the trees on first call (later calls get the same): { one, five }, each { root, files, mb }.
 * Needs cp (with -al for hard links) and git.
 */
export function searchTrees() {
	if (made) return made;
	const modules = join(repoDir, "node_modules");
	if (!existsSync(modules)) throw new Error(`${modules} is missing: run npm ci first`);
	const base = mkdtempSync(join(tmpdir(), "bench-search-"));
	process.once("exit", () => rmSync(base, { recursive: true, force: true }));
	console.error(`# search trees: copying ${modules} into ${base}`);
	const content = join(base, "content");
	run("cp", ["-a", modules, content], base);
	plant(content);
	const one = join(base, "tree");
	run("cp", ["-al", content, one], base);
	run("git", ["init", "-q"], one);
	const five = join(base, "tree5x");
	mkdirSync(five);
	for (let copy = 1; copy <= 5; copy++) run("cp", ["-al", content, join(five, `copy-${copy}`)], base);
	write(five, ".gitignore", "# the 5x tree's own rules\n*.benchignored-top\n");
	run("git", ["init", "-q"], five);
	made = { one: { root: one, ...measure(one) }, five: { root: five, ...measure(five) } };
	console.error(`# search trees: 1× ${describeTree(made.one)}; 5× ${describeTree(made.five)}`);
	return made;
}
