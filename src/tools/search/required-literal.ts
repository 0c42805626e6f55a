/**
 * A text that every match of a regular expression contains, found by reading its source: the
 * longest run of plain characters outside groups and classes that no quantifier makes optional.
 * A line can only match if it holds that text, so a search looks for it first (a fast scan of the
 * file's bytes) and runs the regex only on the lines that do. Undefined when the pattern has no
 * such text (an alternation at the top, only classes) or when reading it is not certain.
 */
export function requiredLiteral(source: string): string | undefined {
	let best = "";
	let run = "";
	const endRun = () => {
		if (run.length > best.length) best = run;
		run = "";
	};
	for (let index = 0; index < source.length; index++) {
		const char = source[index] as string;
		if (char === "\\") {
			const escaped = escapedLiteral(source, index);
			if (escaped === undefined) {
				endRun();
				index = skipEscape(source, index);
				continue;
			}
			index += escaped.length;
			run += escaped.char;
			continue;
		}
		if (char === "|") return undefined; // an alternation at the top: no one text is required
		if (char === "(") {
			endRun();
			const end = groupEnd(source, index);
			if (end === undefined) return undefined;
			index = end;
			continue;
		}
		if (char === "[") {
			endRun();
			const end = classEnd(source, index);
			if (end === undefined) return undefined;
			index = end;
			continue;
		}
		if (char === "*" || char === "?") {
			// The atom before is optional: it leaves the run. (A lazy `?` after a quantifier lands here too.)
			run = run.slice(0, -1);
			endRun();
			continue;
		}
		if (char === "+") {
			endRun();
			continue;
		}
		if (char === "{") {
			const quantifier = /^\{(\d+)(,\d*)?\}/.exec(source.slice(index));
			if (quantifier) {
				if (quantifier[1] === "0") run = run.slice(0, -1);
				endRun();
				index += quantifier[0].length - 1;
				continue;
			}
			run += char; // a brace that is not a quantifier is itself
			continue;
		}
		if (char === "." || char === "^" || char === "$") {
			endRun();
			continue;
		}
		run += char;
	}
	endRun();
	return best.length >= 2 ? best : undefined;
}

/** An escape that stands for one plain character: `\.`, `\/`, `\n`, `\t`; its length after the backslash. */
function escapedLiteral(source: string, index: number): { char: string; length: number } | undefined {
	const next = source[index + 1];
	if (next === undefined) return undefined;
	if (/[\^$\\.*+?()[\]{}|/-]/.test(next)) return { char: next, length: 1 };
	if (next === "n") return { char: "\n", length: 1 };
	if (next === "t") return { char: "\t", length: 1 };
	return undefined;
}

/** The index of the last character of the escape at `index` (`\d`, `\u{1F600}`, `\k<name>`, `\x41`). */
function skipEscape(source: string, index: number): number {
	const next = source[index + 1];
	if (next === "u" && source[index + 2] === "{")
		return source.indexOf("}", index) === -1 ? index + 1 : source.indexOf("}", index);
	if (next === "u") return index + 5;
	if (next === "x") return index + 3;
	if (next === "c") return index + 2;
	if (next === "k" && source[index + 2] === "<")
		return source.indexOf(">", index) === -1 ? index + 1 : source.indexOf(">", index);
	if (next === "p" || next === "P")
		return source[index + 2] === "{" ? Math.max(index + 1, source.indexOf("}", index)) : index + 1;
	return index + 1;
}

/** The index of the `)` closing the group at `start`, minding escapes, classes and nesting. */
function groupEnd(source: string, start: number): number | undefined {
	let depth = 0;
	for (let index = start; index < source.length; index++) {
		const char = source[index];
		if (char === "\\") index++;
		else if (char === "[") {
			const end = classEnd(source, index);
			if (end === undefined) return undefined;
			index = end;
		} else if (char === "(") depth++;
		else if (char === ")") {
			depth--;
			if (depth === 0) return index;
		}
	}
	return undefined;
}

/** The index of the `]` closing the class at `start`. */
function classEnd(source: string, start: number): number | undefined {
	for (let index = start + 1; index < source.length; index++) {
		const char = source[index];
		if (char === "\\") index++;
		else if (char === "]") return index;
	}
	return undefined;
}
