/**
 * What a bash rule looks at in a command line. Allow rules must cover every simple command of
 * the line (`npm test && rm -rf x` is two commands) and never apply to a line whose effect
 * depends on text computed when it runs (command or process substitution, an unclosed quote).
 * Deny rules are a guard, not a sandbox: they look at the whole line, at each simple command,
 * and at each piece of text between shell punctuation or quotes, so that `bash -c 'rm x'` and
 * `echo $(rm x)` meet a `bash(rm *)` rule too.
 */
export interface CommandLine {
	/** The simple commands, trimmed, without leading `if`/`then`/`do`/`!`/`{` and the like. */
	commands: string[];
	/** True when allow rules cannot judge the line (substitutions, an unclosed quote). */
	opaque: boolean;
	/** Everything deny rules are matched against. */
	denyCandidates: string[];
}

const LEADING_WORDS = new Set(["if", "then", "else", "elif", "do", "while", "until", "time", "!", "{"]);
const CLOSING_WORDS = new Set(["}", "fi", "done", "esac", "then", "do", "else"]);
const LOOSE_SEPARATORS = new Set([";", "&", "|", "\n", "(", ")", "{", "}", "`", "'", '"', "<", ">"]);

/** A piece of a line as a rule sees it: trimmed, leading shell keywords removed; empty when nothing is left. */
function normalize(text: string): string {
	let command = text.trim();
	for (let round = 0; round < 8; round++) {
		const match = /^(\S+)\s+/.exec(command);
		if (!match || !LEADING_WORDS.has(match[1] as string)) break;
		command = command.slice(match[0].length);
	}
	return CLOSING_WORDS.has(command) || LEADING_WORDS.has(command) ? "" : command;
}

export function parseCommandLine(line: string): CommandLine {
	const commands: string[] = [];
	let current = "";
	let quote: "'" | '"' | undefined;
	let opaque = false;
	const cut = () => {
		const command = normalize(current);
		if (command) commands.push(command);
		current = "";
	};
	for (let index = 0; index < line.length; index++) {
		const char = line[index] as string;
		const next = line[index + 1];
		if (quote === "'") {
			if (char === "'") quote = undefined;
			current += char;
		} else if (char === "\\") {
			current += char + (next ?? "");
			index++;
		} else if (quote === '"') {
			if (char === '"') quote = undefined;
			else if (char === "`" || (char === "$" && next === "(")) opaque = true;
			current += char;
		} else if (char === "'" || char === '"') {
			quote = char;
			current += char;
		} else if (char === "`" || ((char === "$" || char === "<" || char === ">") && next === "(")) {
			opaque = true;
			current += char;
		} else if (char === ";" || char === "\n" || char === "(" || char === ")") cut();
		else if (char === "&" && (line[index - 1] === ">" || next === ">")) current += char;
		else if (char === "&" || char === "|") {
			cut();
			if (next === char || (char === "|" && next === "&")) index++;
		} else current += char;
	}
	if (quote) opaque = true;
	cut();
	return { commands, opaque, denyCandidates: denyCandidates(line, commands) };
}

function denyCandidates(line: string, commands: string[]): string[] {
	const candidates = new Set<string>([line.trim(), ...commands]);
	let piece = "";
	for (let index = 0; index <= line.length; index++) {
		const char = line[index];
		if (char !== undefined && !LOOSE_SEPARATORS.has(char) && !(char === "$" && line[index + 1] === "(")) {
			piece += char;
			continue;
		}
		const candidate = normalize(piece);
		if (candidate) candidates.add(candidate);
		piece = "";
	}
	candidates.delete("");
	return [...candidates];
}
