import { statSync } from "node:fs";
import picomatch from "picomatch";
import type { ScanPattern } from "./file-scan.js";
import { requiredLiteral } from "./required-literal.js";
import type { GrepJobArguments } from "./types.js";

/** The regex and the text every match holds (searched for first), from grep's arguments. */
export function scanPattern(args: Pick<GrepJobArguments, "pattern" | "ignoreCase" | "literal">): ScanPattern {
	const regex = compileRegex(args.pattern, args.ignoreCase === true, args.literal === true);
	const literal = args.literal === true ? args.pattern : requiredLiteral(regex.source);
	if (literal === undefined || literal === "") return { regex };
	if (!regex.flags.includes("i")) return { regex, needle: Buffer.from(literal, "utf8").toString("latin1") };
	// Case-insensitively only for ASCII text: its bytes are its characters in any encoding.
	if (/^[\x20-\x7e]*$/.test(literal)) {
		return { regex, needleRegex: new RegExp(escapeRegex(literal), "gi"), needleRegexLength: literal.length };
	}
	return { regex };
}

function escapeRegex(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/**
 * Builds the search regex. A leading `(?i)`, ripgrep's inline flag that models often write, is
 * turned into the `i` flag since JavaScript has no equivalent.
 */
export function compileRegex(pattern: string, ignoreCase: boolean, literal: boolean): RegExp {
	let source = literal ? escapeRegex(pattern) : pattern;
	let flags = ignoreCase ? "i" : "";
	if (!literal && source.startsWith("(?i)")) {
		source = source.slice(4);
		flags = "i";
	}
	try {
		return new RegExp(source, flags);
	} catch (error) {
		// The engine's message repeats the pattern as /.../; keep only its reason.
		const reason = error instanceof Error ? (error.message.split(": ").pop() ?? error.message) : String(error);
		throw new Error(`Invalid regex pattern "${pattern}": ${reason}. Use literal=true to search for the text as is`, {
			cause: error,
		});
	}
}

/**
 * Compiles a glob for root-relative POSIX paths. Like ripgrep's and fd's globs, a pattern without
 * `/` matches the base name at any depth (`*.ts`); one with `/` matches the whole relative path.
 * Hidden files match like any other.
 */
export function compileGlob(pattern: string): (path: string) => boolean {
	const normalized = pattern.startsWith("./") ? pattern.slice(2) : pattern;
	let matcher: (path: string) => boolean;
	try {
		matcher = picomatch(normalized, { dot: true, windows: false });
	} catch (error) {
		const reason = error instanceof Error ? error.message : String(error);
		throw new Error(`Invalid glob pattern "${pattern}": ${reason}`, { cause: error });
	}
	if (normalized.includes("/")) return matcher;
	return (path) => matcher(path.slice(path.lastIndexOf("/") + 1));
}

/** Stats a path a tool was given; a missing one fails with "Path not found: <path>". */
export function statPath(path: string) {
	try {
		const info = statSync(path, { throwIfNoEntry: false });
		if (info) return info;
	} catch (error) {
		if (!(error instanceof Error && "code" in error && error.code === "ENOTDIR")) throw error;
	}
	throw new Error(`Path not found: ${path}`);
}
