import type { AgentToolResult } from "../../../src/agent/types.js";
import { createFindTool, type FindToolInput } from "../../../src/tools/find.js";
import { createGrepTool, type GrepToolInput } from "../../../src/tools/grep.js";
import { GREP_MAX_LINE_CHARS } from "../../../src/tools/truncate.js";
import { textOf } from "../search-fixture.js";

const ignoreUpdate = () => undefined;

/** Calls Atomic's grep tool as the agent does; its result. */
export function grepTool(cwd: string, args: GrepToolInput, signal = new AbortController().signal) {
	return createGrepTool({ cwd }).execute("call", args, signal, ignoreUpdate);
}

/** Calls Atomic's find tool as the agent does; its result. */
export function findTool(cwd: string, args: FindToolInput, signal = new AbortController().signal) {
	return createFindTool({ cwd }).execute("call", args, signal, ignoreUpdate);
}

/** A result's text split into its lines and its closing notice (the bracketed text after a blank line). */
export function splitResult(result: AgentToolResult): { lines: string[]; notice: string } {
	const text = textOf(result);
	const cut = /\n\n(\[[^\n]*\])$/.exec(text);
	const body = cut ? text.slice(0, cut.index) : text;
	const notice = cut?.[1] ?? "";
	if (body === "No matches found" || body === "No files found matching pattern") return { lines: [], notice };
	return { lines: body.split("\n"), notice };
}

/** One line of grep output: a match (`:`) or a context line (`-`). */
export interface GrepHit {
	path: string;
	line: number;
	kind: ":" | "-";
	text: string;
}

const TRUNCATION_MARK = "... [truncated]";

/** A line text as both sides are compared: without a final CR, cut to the tool's maximum line length. */
export function comparableText(text: string): string {
	const untruncated = text.endsWith(TRUNCATION_MARK) ? text.slice(0, -TRUNCATION_MARK.length) : text;
	const withoutCr = untruncated.endsWith("\r") ? untruncated.slice(0, -1) : untruncated;
	return withoutCr.slice(0, GREP_MAX_LINE_CHARS);
}

/** Parses Atomic's grep lines (`path:N: text`, `path-N- text`, `--`); throws on anything else. */
export function atomicHits(lines: readonly string[]): GrepHit[] {
	const hits: GrepHit[] = [];
	for (const line of lines) {
		if (line === "--") continue;
		const parsed = /^(.+?)([:-])(\d+)\2 (.*)$/s.exec(line);
		if (!parsed) throw new Error(`not a grep line: ${JSON.stringify(line.slice(0, 200))}`);
		const [, path = "", kind = ":", number = "0", text = ""] = parsed;
		hits.push({ path, line: Number(number), kind: kind === ":" ? ":" : "-", text: comparableText(text) });
	}
	return hits;
}

/** Parses `rg --null --line-number --no-heading` output (`path\0N:text`, `path\0N-text`, `--`). */
export function rgHits(output: string): GrepHit[] {
	const hits: GrepHit[] = [];
	for (const line of output.split("\n")) {
		if (line === "" || line === "--") continue;
		const parsed = /^([^\0]+)\0(\d+)([:-])(.*)$/s.exec(line);
		if (!parsed) throw new Error(`not an rg line: ${JSON.stringify(line.slice(0, 200))}`);
		const [, path = "", number = "0", kind = ":", text = ""] = parsed;
		hits.push({ path, line: Number(number), kind: kind === ":" ? ":" : "-", text: comparableText(text) });
	}
	return hits;
}

/** Hits as sorted strings, so that two outputs in different orders compare equal (duplicates still count). */
export function hitKeys(hits: readonly GrepHit[]): string[] {
	return hits.map((hit) => `${hit.path}${hit.kind}${hit.line}${hit.kind}${hit.text}`).sort();
}

/** The distinct files of grep hits, sorted. */
export function hitFiles(hits: readonly GrepHit[]): string[] {
	return [...new Set(hits.map((hit) => hit.path))].sort();
}
