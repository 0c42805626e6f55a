/**
 * One ignore file (`.gitignore`, `.ignore`, `.git/info/exclude`, the global excludes file), compiled
 * to regular expressions with git's rules (gitignore(5)): `#` comments, trailing spaces dropped
 * unless escaped, `!` negates, a trailing `/` matches directories only, a pattern with a `/` at its
 * start or in its middle is relative to the file's folder and any other matches a name at any
 * depth, `*` and `?` do not cross `/`, `**` spans folders, `[...]` is a class, `\` escapes.
 */

interface Rule {
	negated: boolean;
	directoryOnly: boolean;
	/** Tested against the path relative to the file's folder; otherwise against the entry's name. */
	anchored: boolean;
	regex: RegExp;
}

/** What a file says about an entry: ignored, re-included (`!`), or nothing. */
export type IgnoreVerdict = "ignored" | "included" | undefined;

export class IgnoreFile {
	private constructor(
		private readonly rules: readonly Rule[],
		/** One regex that matches whenever any rule might: most entries match none. */
		private readonly any: { names: RegExp | undefined; paths: RegExp | undefined },
	) {}

	/** Compiles the text of an ignore file; lines that are not valid patterns are left out, as git does. */
	static parse(text: string, ignoreCase: boolean): IgnoreFile {
		const rules: Rule[] = [];
		for (const line of text.split("\n")) {
			const rule = parseLine(line.endsWith("\r") ? line.slice(0, -1) : line, ignoreCase);
			if (rule) rules.push(rule);
		}
		const flags = ignoreCase ? "i" : "";
		const union = (anchored: boolean) => {
			const sources = rules.filter((rule) => rule.anchored === anchored).map((rule) => rule.regex.source);
			return sources.length === 0 ? undefined : new RegExp(sources.join("|"), flags);
		};
		return new IgnoreFile(rules, { names: union(false), paths: union(true) });
	}

	get size(): number {
		return this.rules.length;
	}

	/**
	 * The verdict of the last rule that matches the entry: `path` is relative to this file's
	 * folder (POSIX), `name` its last part.
	 */
	verdict(path: string, name: string, isDirectory: boolean): IgnoreVerdict {
		const { names, paths } = this.any;
		if (!(names?.test(name) ?? false) && !(paths?.test(path) ?? false)) return undefined;
		for (let index = this.rules.length - 1; index >= 0; index--) {
			const rule = this.rules[index] as Rule;
			if (rule.directoryOnly && !isDirectory) continue;
			if (rule.regex.test(rule.anchored ? path : name)) return rule.negated ? "included" : "ignored";
		}
		return undefined;
	}
}

function parseLine(raw: string, ignoreCase: boolean): Rule | undefined {
	let line = trimTrailingSpaces(raw);
	if (line === "" || line.startsWith("#")) return undefined;
	let negated = false;
	if (line.startsWith("!")) {
		negated = true;
		line = line.slice(1);
	}
	let directoryOnly = false;
	if (line.endsWith("/") && !line.endsWith("\\/")) {
		directoryOnly = true;
		line = line.replace(/\/+$/, "");
	}
	if (line === "") return undefined;
	const anchored = line.slice(0, -1).includes("/") || line.startsWith("/");
	if (line.startsWith("/")) line = line.slice(1);
	const source = globToRegex(line);
	if (source === undefined) return undefined;
	return { negated, directoryOnly, anchored, regex: new RegExp(`^(?:${source})$`, ignoreCase ? "i" : "") };
}

/** Trailing spaces are dropped unless the last one is escaped (`\ `). */
function trimTrailingSpaces(line: string): string {
	let end = line.length;
	while (end > 0 && line[end - 1] === " ") {
		if (end >= 2 && line[end - 2] === "\\") break;
		end--;
	}
	return line.slice(0, end);
}

const SPECIAL = /[.*+?^${}()|[\]\\/]/;

/** A glob as a regex source over POSIX paths; undefined when it cannot match anything. */
function globToRegex(glob: string): string | undefined {
	let out = "";
	for (let index = 0; index < glob.length; index++) {
		const char = glob[index] as string;
		if (char === "*") {
			const double = glob[index + 1] === "*";
			if (double) {
				const atStart = index === 0;
				const before = atStart || glob[index - 1] === "/";
				const afterIndex = index + 2;
				const atEnd = afterIndex === glob.length;
				const after = atEnd || glob[afterIndex] === "/";
				if (before && after) {
					if (atEnd) {
						// `x/**`: everything inside; `**` alone: everything.
						out += ".*";
						index++;
						continue;
					}
					// `**/` at the start or `/**/` in the middle: zero or more folders.
					out += "(?:.*/)?";
					index += 2;
					continue;
				}
				// Other runs of asterisks are single ones.
				while (glob[index + 1] === "*") index++;
			}
			out += "[^/]*";
		} else if (char === "?") {
			out += "[^/]";
		} else if (char === "[") {
			const klass = characterClass(glob, index);
			if (klass) {
				out += klass.source;
				index = klass.end;
			} else out += "\\[";
		} else if (char === "\\") {
			const next = glob[index + 1];
			if (next === undefined) return undefined; // a trailing backslash is an invalid pattern
			out += escapeChar(next);
			index++;
		} else out += escapeChar(char);
	}
	return out;
}

function escapeChar(char: string): string {
	return SPECIAL.test(char) ? `\\${char}` : char;
}

/** A `[...]` class starting at `start`: its regex and the index of its `]`; undefined when unterminated. */
function characterClass(glob: string, start: number): { source: string; end: number } | undefined {
	let index = start + 1;
	let negated = false;
	if (glob[index] === "!" || glob[index] === "^") {
		negated = true;
		index++;
	}
	let body = "";
	let first = true;
	for (; index < glob.length; index++) {
		const char = glob[index] as string;
		if (char === "]" && !first) return { source: `[${negated ? "^/" : ""}${body}]`, end: index };
		first = false;
		if (char === "\\") {
			const next = glob[index + 1];
			if (next === undefined) return undefined;
			body += `\\${next}`;
			index++;
		} else if (char === "[" && glob[index + 1] === ":") {
			const close = glob.indexOf(":]", index + 2);
			const name = close === -1 ? "" : glob.slice(index + 2, close);
			const posix = POSIX_CLASSES[name];
			if (posix === undefined) body += "\\[";
			else {
				body += posix;
				index = close + 1;
			}
		} else if (char !== "/") {
			// A class never matches the separator.
			body += /[\]\\^]/.test(char) ? `\\${char}` : char;
		}
	}
	return undefined;
}

const POSIX_CLASSES: Record<string, string> = {
	alnum: "a-zA-Z0-9",
	alpha: "a-zA-Z",
	digit: "0-9",
	lower: "a-z",
	upper: "A-Z",
	space: " \\t\\n\\r\\f\\v",
	xdigit: "0-9a-fA-F",
	punct: "!-\\/:-@\\[-`{-~",
	blank: " \\t",
};
