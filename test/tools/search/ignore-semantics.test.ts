import { appendFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { temporaryDirectory } from "../search-fixture.js";
import { describeWithTools, entriesOf, fdPath, runTool } from "./external-tools.js";
import {
	type Category,
	GLOBAL_EXCLUDES,
	INFO_EXCLUDE,
	inGitFolder,
	MARKER,
	PLANTED,
	plantTree,
	RULE_FILES,
	visibleCandidates,
} from "./ignore-tree.js";
import { atomicHits, findTool, grepTool, hitFiles, splitResult } from "./search-calls.js";

/**
 * The global excludes file lives where git, ripgrep and fd all look when core.excludesFile is unset:
 * $XDG_CONFIG_HOME/git/ignore. HOME and XDG_CONFIG_HOME point into a folder of this test (set before
 * any module loads, so that every search of this process sees them; this file runs in a process of its own).
 */
const environment = vi.hoisted(() => {
	const base = `${process.env.TMPDIR ?? "/tmp"}/atomic-ignore-env-${process.pid}`;
	process.env.HOME = `${base}/home`;
	process.env.XDG_CONFIG_HOME = `${base}/xdg`;
	return { base, home: `${base}/home`, xdg: `${base}/xdg` };
});

afterAll(() => rmSync(environment.base, { recursive: true, force: true }));

type Verdict = "listed" | "left out";

/** `path → verdict` for the given paths, so that a failure shows which file went wrong and how. */
function verdicts(paths: readonly string[], listed: ReadonlySet<string>): Record<string, Verdict> {
	return Object.fromEntries(paths.map((path) => [path, listed.has(path) ? "listed" : "left out"]));
}

const CATEGORIES: Record<Category, string> = {
	plain: "plain files (control)",
	rootRules: "root .gitignore globs",
	nestedRules: "nested .gitignore files, deeper ones overriding shallower ones",
	negation: "negations (`!`), which cannot re-include a file inside an excluded folder",
	reinclusion: "re-inclusion of a folder by `!**/fixtures/**/node_modules`",
	directoryOnly: "directory-only rules (`build/`, `tmp/`)",
	anchored: "anchored rules (`/lib`, `packages/*/lib`, `/local-only.txt` in src/.gitignore)",
	doubleStar: "`**` at the start, in the middle and at the end of a rule",
	escapes: "trailing spaces, escaped `\\ `, `\\#` and `\\!`, and comments",
	characterClass: "character classes (`[0-9]`, `[!x]`) and `?`",
	infoExclude: ".git/info/exclude",
	globalExcludes: "the global excludes file ($XDG_CONFIG_HOME/git/ignore), overridden by .gitignore",
	dotIgnore: ".ignore files (ripgrep's convention: they win over .gitignore)",
	hidden: "hidden files and folders (searched)",
	gitFolder: ".git folders (never searched, at the root or below)",
	namedLikeRules: "files named like rules",
};

describeWithTools("ignore rules: Atomic's find and grep against git check-ignore", ["git"], () => {
	const root = temporaryDirectory();
	const candidates = visibleCandidates();
	/** The files git (and, for .ignore files, ripgrep's convention) keeps. */
	let expected = new Set<string>();
	let gitKept = new Set<string>();
	let listedByFind = new Set<string>();
	let foundByGrep = new Set<string>();

	beforeAll(async () => {
		mkdirSync(environment.home, { recursive: true });
		mkdirSync(join(environment.xdg, "git"), { recursive: true });
		writeFileSync(join(environment.xdg, "git", "ignore"), `${GLOBAL_EXCLUDES.join("\n")}\n`);
		runTool("git", ["init", "-q"], root);
		plantTree(root);
		appendFileSync(join(root, ".git", "info", "exclude"), `${INFO_EXCLUDE.join("\n")}\n`);

		const ignored = new Set(
			entriesOf(runTool("git", ["check-ignore", "--stdin", "-z"], root, `${candidates.join("\0")}\0`), "\0"),
		);
		gitKept = new Set(candidates.filter((path) => !ignored.has(path)));
		const dotIgnoreVerdicts = new Map(PLANTED.map((file) => [file.path, file.keptByDotIgnore]));
		expected = new Set(candidates.filter((path) => dotIgnoreVerdicts.get(path) ?? gitKept.has(path)));

		const found = splitResult(await findTool(root, { pattern: "**/*", limit: 100_000 }));
		listedByFind = new Set(found.lines.filter((line) => !line.endsWith("/")));
		const grepped = splitResult(await grepTool(root, { pattern: MARKER, literal: true, limit: 100_000 }));
		foundByGrep = new Set(hitFiles(atomicHits(grepped.lines)));
	});

	it("git's own listing of untracked files agrees with check-ignore (the reference is sound)", () => {
		const listed = entriesOf(runTool("git", ["ls-files", "--others", "--exclude-standard", "-z"], root), "\0");
		expect(new Set(listed)).toEqual(gitKept);
	});

	for (const [category, title] of Object.entries(CATEGORIES)) {
		it(`${title}: find lists and grep finds exactly the files kept`, () => {
			const paths = PLANTED.filter((file) => file.category === category).map((file) => file.path);
			const want = verdicts(paths, expected);
			expect({ find: verdicts(paths, listedByFind), grep: verdicts(paths, foundByGrep) }).toEqual({
				find: want,
				grep: want,
			});
		});
	}

	it("ignore files themselves are listed and searched like any hidden file", () => {
		const paths = Object.keys(RULE_FILES);
		const want = verdicts(paths, expected);
		expect({ find: verdicts(paths, listedByFind), grep: verdicts(paths, foundByGrep) }).toEqual({
			find: want,
			grep: want,
		});
	});

	it("lists and finds nothing but the kept files", () => {
		const kept = [...expected].sort();
		expect({ find: [...listedByFind].sort(), grep: [...foundByGrep].sort() }).toEqual({ find: kept, grep: kept });
	});

	it("a search rooted in a sub-folder applies the rules of the folders above it", async () => {
		const actual: Record<string, { find: string[]; grep: string[] }> = {};
		const want: Record<string, { find: string[]; grep: string[] }> = {};
		for (const folder of ["src", "sub", "test/fixtures", "dist"]) {
			const prefix = `${folder}/`;
			const kept = [...expected]
				.filter((path) => path.startsWith(prefix))
				.map((path) => path.slice(prefix.length))
				.sort();
			want[folder] = { find: kept, grep: kept };
			const found = splitResult(await findTool(root, { pattern: "**/*", path: folder, limit: 100_000 }));
			const grepped = splitResult(
				await grepTool(root, { pattern: MARKER, path: folder, literal: true, limit: 100_000 }),
			);
			actual[folder] = {
				find: found.lines.filter((line) => !line.endsWith("/")).sort(),
				grep: hitFiles(atomicHits(grepped.lines)),
			};
		}
		expect(actual).toEqual(want);
	});

	describeWithTools("the same tree through ripgrep", ["rg"], () => {
		it("rg --files --hidden and rg -l list the kept files (git's verdict, ripgrep's for .ignore files)", () => {
			const exceptGit = ["--hidden", "--glob", "!.git"];
			const files = entriesOf(runTool("rg", ["--files", ...exceptGit, "--null"], root), "\0");
			const matching = entriesOf(runTool("rg", ["-l", "-F", MARKER, ...exceptGit, "--null"], root), "\0");
			const kept = [...expected].sort();
			expect({ files: files.sort(), matching: matching.sort() }).toEqual({ files: kept, matching: kept });
		});
	});

	describeWithTools("the same tree through fd", ["fdfind"], () => {
		it("fdfind -H lists the kept files, and the same folders as Atomic's find", async () => {
			const files = entriesOf(runTool("fdfind", ["-H", "-t", "f", "-E", ".git", "-0"], root), "\0").map(fdPath);
			expect(files.sort()).toEqual([...expected].sort());
			const folders = entriesOf(runTool("fdfind", ["-H", "-t", "d", "-E", ".git", "-0"], root), "\0").map(fdPath);
			const found = splitResult(await findTool(root, { pattern: "**/*", limit: 100_000 }));
			const atomicFolders = found.lines.filter((line) => line.endsWith("/")).map((line) => line.slice(0, -1));
			expect(atomicFolders.filter((path) => !inGitFolder(path)).sort()).toEqual(folders.sort());
		});
	});
});
