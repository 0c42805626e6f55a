import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Planted in every file of the tree (ignore files too, as a comment), so one grep finds them all. */
export const MARKER = "plantedmarker";

/**
 * What a planted file tests. The expected verdict of every file comes from `git check-ignore`,
 * except for `dotIgnore` files, whose verdict is ripgrep's convention (git does not read `.ignore`).
 */
export type Category =
	| "rootRules"
	| "nestedRules"
	| "negation"
	| "reinclusion"
	| "directoryOnly"
	| "anchored"
	| "doubleStar"
	| "escapes"
	| "characterClass"
	| "infoExclude"
	| "globalExcludes"
	| "dotIgnore"
	| "hidden"
	| "gitFolder"
	| "namedLikeRules"
	| "plain";

interface PlantedFile {
	path: string;
	category: Category;
	/** Only for `dotIgnore`: whether ripgrep's convention keeps the file. */
	keptByDotIgnore?: boolean;
}

/** Rule files, by path; each holds a comment with the marker. */
export const RULE_FILES: Record<string, string[]> = {
	".gitignore": [
		"# root rules",
		"*.log",
		"!keep.log",
		"build/",
		"/lib",
		"packages/*/lib",
		"docs/**/generated",
		"node_modules",
		"!**/fixtures/**/node_modules",
		"trailing.txt   ",
		"space\\ ",
		"\\#hash.txt",
		"#comment.txt",
		"\\!bang.txt",
		"file[0-9].tmp",
		"[!x]y.dat",
		"*.o",
		"!important.o",
		"secret/",
		"!secret/public.txt",
		"abc/**",
		"!abc/kept/",
		"!keep.globalignored",
		"**/cache/**/*.bin",
		"**/logs",
		"guide/*.md",
		"dist/*",
		"!dist/keep.txt",
		"q?.txt",
		"CaseRule.txt",
		"**/deep-rule/target.txt",
	],
	"src/.gitignore": ["*.gen.ts", "!keep.gen.ts", "/local-only.txt", "tmp/"],
	"logs-kept/.gitignore": ["!*.log"],
	"src/deep/.gitignore": ["!*.gen.ts", "*.txt"],
	".ignore": ["ignored-by-dot-ignore.txt", "!reincluded-by-dot-ignore.o"],
	"nested/.ignore": ["only-here.txt"],
};

/** Rules of `.git/info/exclude`, added to what `git init` writes there. */
export const INFO_EXCLUDE = ["excluded-by-info.txt", "info-dir/"];

/** Rules of the global excludes file (`$XDG_CONFIG_HOME/git/ignore`, git's default when core.excludesFile is unset). */
export const GLOBAL_EXCLUDES = ["*.globalignored", "global-dir/"];

export const PLANTED: readonly PlantedFile[] = [
	{ path: "README.md", category: "plain" },
	{ path: "src/index.ts", category: "plain" },
	{ path: "a/b/c/d/e/f/deep.txt", category: "plain" },
	{ path: "docs/ünïcode.txt", category: "plain" },
	{ path: "with space/file name.txt", category: "plain" },
	{ path: "app.log", category: "rootRules" },
	{ path: "sub/deep/x.log", category: "rootRules" },
	{ path: "app.log.txt", category: "rootRules" },
	{ path: "guide/a.md", category: "rootRules" },
	{ path: "guide/sub/b.md", category: "rootRules" },
	{ path: "CaseRule.txt", category: "rootRules" },
	{ path: "caserule.txt", category: "rootRules" },
	{ path: "keep.log", category: "negation" },
	{ path: "dist/x.js", category: "negation" },
	{ path: "dist/keep.txt", category: "negation" },
	{ path: "dist/sub/y.js", category: "negation" },
	{ path: "sub/deep/keep.log", category: "negation" },
	{ path: "a.o", category: "negation" },
	{ path: "important.o", category: "negation" },
	{ path: "src/important.o", category: "negation" },
	{ path: "secret/public.txt", category: "negation" },
	{ path: "secret/other.txt", category: "negation" },
	{ path: "abc/file.txt", category: "negation" },
	{ path: "abc/kept/file.txt", category: "negation" },
	{ path: "node_modules/pkg/index.js", category: "reinclusion" },
	{ path: "src/node_modules/x.js", category: "reinclusion" },
	{ path: "test/fixtures/case1/node_modules/dep/index.js", category: "reinclusion" },
	{ path: "test/fixtures/node_modules/dep.js", category: "reinclusion" },
	{ path: "test/other/node_modules/dep.js", category: "reinclusion" },
	{ path: "build/out.js", category: "directoryOnly" },
	{ path: "src/build/out.js", category: "directoryOnly" },
	{ path: "build.txt", category: "directoryOnly" },
	{ path: "nested/build", category: "directoryOnly" },
	{ path: "src/tmp/scratch.ts", category: "directoryOnly" },
	{ path: "src/sub/tmp/scratch.ts", category: "directoryOnly" },
	{ path: "lib/a.js", category: "anchored" },
	{ path: "src/lib/a.js", category: "anchored" },
	{ path: "packages/core/lib/index.js", category: "anchored" },
	{ path: "packages/core/src/lib/x.js", category: "anchored" },
	{ path: "packages/core/nested/lib/y.js", category: "anchored" },
	{ path: "src/local-only.txt", category: "anchored" },
	{ path: "src/sub/local-only.txt", category: "anchored" },
	{ path: "local-only.txt", category: "anchored" },
	{ path: "docs/generated/a.md", category: "doubleStar" },
	{ path: "docs/a/b/generated/c.md", category: "doubleStar" },
	{ path: "docs/generated.md", category: "doubleStar" },
	{ path: "other/generated/x.md", category: "doubleStar" },
	{ path: "cache/x.bin", category: "doubleStar" },
	{ path: "w/cache/y/z.bin", category: "doubleStar" },
	{ path: "w/cache/y/z.txt", category: "doubleStar" },
	{ path: "logs/a.txt", category: "doubleStar" },
	{ path: "deep-rule/target.txt", category: "doubleStar" },
	{ path: "x/y/deep-rule/target.txt", category: "doubleStar" },
	{ path: "x/y/deep-rule/other.txt", category: "doubleStar" },
	{ path: "q/logs/b.txt", category: "doubleStar" },
	{ path: "trailing.txt", category: "escapes" },
	{ path: "space ", category: "escapes" },
	{ path: "space", category: "escapes" },
	{ path: "#hash.txt", category: "escapes" },
	{ path: "#comment.txt", category: "escapes" },
	{ path: "!bang.txt", category: "escapes" },
	{ path: "bang.txt", category: "escapes" },
	{ path: "file1.tmp", category: "characterClass" },
	{ path: "filex.tmp", category: "characterClass" },
	{ path: "ay.dat", category: "characterClass" },
	{ path: "qa.txt", category: "characterClass" },
	{ path: "qab.txt", category: "characterClass" },
	{ path: "xy.dat", category: "characterClass" },
	{ path: "src/a.gen.ts", category: "nestedRules" },
	{ path: "src/keep.gen.ts", category: "nestedRules" },
	{ path: "src/deep/b.gen.ts", category: "nestedRules" },
	{ path: "src/deep/notes.txt", category: "nestedRules" },
	{ path: "notes.txt", category: "nestedRules" },
	{ path: "logs-kept/x.log", category: "nestedRules" },
	{ path: "excluded-by-info.txt", category: "infoExclude" },
	{ path: "sub/excluded-by-info.txt", category: "infoExclude" },
	{ path: "info-dir/x.txt", category: "infoExclude" },
	{ path: "a.globalignored", category: "globalExcludes" },
	{ path: "sub/b.globalignored", category: "globalExcludes" },
	{ path: "keep.globalignored", category: "globalExcludes" },
	{ path: "global-dir/x.txt", category: "globalExcludes" },
	{ path: "ignored-by-dot-ignore.txt", category: "dotIgnore", keptByDotIgnore: false },
	{ path: "sub/ignored-by-dot-ignore.txt", category: "dotIgnore", keptByDotIgnore: false },
	{ path: "reincluded-by-dot-ignore.o", category: "dotIgnore", keptByDotIgnore: true },
	{ path: "nested/only-here.txt", category: "dotIgnore", keptByDotIgnore: false },
	{ path: "only-here.txt", category: "dotIgnore", keptByDotIgnore: true },
	{ path: ".hidden.txt", category: "hidden" },
	{ path: ".config/settings.json", category: "hidden" },
	{ path: ".hiddendir/.inner", category: "hidden" },
	{ path: "src/.env", category: "hidden" },
	{ path: ".git/planted.txt", category: "gitFolder" },
	{ path: "vendor/sub/.git/HEAD", category: "gitFolder" },
	{ path: "vendor/sub/kept.txt", category: "gitFolder" },
	{ path: "*.log", category: "namedLikeRules" },
	{ path: "!keep.log", category: "namedLikeRules" },
	{ path: "node_modules-file/node_modules", category: "namedLikeRules" },
	{ path: "tools/lib", category: "namedLikeRules" },
	{ path: "nested/.gitignore-like", category: "namedLikeRules" },
];

/** Writes the rule files and every planted file (each holding the marker) under `root`. */
export function plantTree(root: string): void {
	const write = (path: string, text: string): void => {
		const absolute = join(root, path);
		mkdirSync(dirname(absolute), { recursive: true });
		writeFileSync(absolute, text);
	};
	for (const [path, rules] of Object.entries(RULE_FILES)) write(path, [`# ${MARKER}`, ...rules, ""].join("\n"));
	for (const file of PLANTED) write(file.path, `planted file\n${MARKER} ${file.path}\n`);
}

/** Paths inside a `.git` folder: never listed nor searched, whatever the rules. */
export function inGitFolder(path: string): boolean {
	return path.split("/").includes(".git");
}

/** Every file of the tree a search can see: planted files and rule files, outside `.git`. */
export function visibleCandidates(): string[] {
	return [...PLANTED.map((file) => file.path), ...Object.keys(RULE_FILES)].filter((path) => !inGitFolder(path));
}
