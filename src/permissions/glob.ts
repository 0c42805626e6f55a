/**
 * A small glob matcher for permission rules: `*` matches any run of characters, `?` one
 * character, `\` makes the next character literal. In path mode `*` and `?` stop at `/`, `**`
 * crosses directories, and `**` followed by `/` at the start of a segment also matches no
 * directory at all (`**` + `/a` matches `a` and `x/y/a`). Matching simulates the pattern as an automaton, so
 * it takes time proportional to pattern length times subject length whatever the input (the
 * subject is a command line or a path the model wrote); no regular expression is built.
 */
type Token =
	| { kind: "char"; char: string }
	| { kind: "one" }
	| { kind: "star" }
	| { kind: "globstar" }
	/** `**` then `/`: nothing, or one or more whole directories. */
	| { kind: "dirs" };

export interface Glob {
	readonly tokens: readonly Token[];
	readonly paths: boolean;
}

export function compileGlob(pattern: string, paths: boolean): Glob {
	const tokens: Token[] = [];
	for (let index = 0; index < pattern.length; index++) {
		const char = pattern[index] as string;
		if (char === "\\" && index + 1 < pattern.length) {
			index++;
			tokens.push({ kind: "char", char: pattern[index] as string });
		} else if (char === "?") tokens.push({ kind: "one" });
		else if (char !== "*") tokens.push({ kind: "char", char });
		else if (pattern[index + 1] !== "*") tokens.push({ kind: "star" });
		else {
			const segmentStart = index === 0 || pattern[index - 1] === "/";
			while (pattern[index + 1] === "*") index++;
			if (paths && segmentStart && pattern[index + 1] === "/") {
				index++;
				tokens.push({ kind: "dirs" });
			} else tokens.push({ kind: paths ? "globstar" : "star" });
		}
	}
	return { tokens, paths };
}

/** Whether the whole subject matches the glob. */
export function matchGlob(glob: Glob, subject: string): boolean {
	const { tokens, paths } = glob;
	const size = tokens.length + 1;
	// at[i]: the pattern is at token i; inside[i]: within the directories of the `dirs` token i.
	let at = new Uint8Array(size);
	let inside = new Uint8Array(size);
	let nextAt = new Uint8Array(size);
	let nextInside = new Uint8Array(size);
	let alive = false;
	const enter = (states: Uint8Array, index: number) => {
		alive = true;
		for (let state = index; state < size && !states[state]; state++) {
			states[state] = 1;
			const kind = tokens[state]?.kind;
			if (kind !== "star" && kind !== "globstar" && kind !== "dirs") return;
		}
	};
	enter(at, 0);
	for (let position = 0; position < subject.length; position++) {
		const char = subject[position] as string;
		const slash = char === "/";
		nextAt.fill(0);
		nextInside.fill(0);
		alive = false;
		for (let state = 0; state < tokens.length; state++) {
			if (inside[state]) {
				alive = true;
				nextInside[state] = 1;
				if (slash) enter(nextAt, state + 1);
			}
			if (at[state]) step(tokens[state] as Token, state, char, slash && paths);
		}
		if (!alive) return false;
		[at, nextAt] = [nextAt, at];
		[inside, nextInside] = [nextInside, inside];
	}
	return at[tokens.length] === 1;

	function step(token: Token, state: number, char: string, pathSlash: boolean): void {
		switch (token.kind) {
			case "char":
				if (token.char === char) enter(nextAt, state + 1);
				return;
			case "one":
				if (!pathSlash) enter(nextAt, state + 1);
				return;
			case "star":
				if (!pathSlash) enter(nextAt, state);
				return;
			case "globstar":
				enter(nextAt, state);
				return;
			case "dirs":
				if (char !== "/") {
					alive = true;
					nextInside[state] = 1;
				}
				return;
		}
	}
}

/** The text with every glob character made literal. */
export function escapeGlob(text: string): string {
	return text.replace(/[\\*?]/g, (char) => `\\${char}`);
}
