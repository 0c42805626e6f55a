import { isAbsolute, relative, resolve } from "node:path";
import type { ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";
import { resolveToolPath } from "../tools/paths.js";

/** How a tool call looks in the editor before it has run: its kind, title and the files it touches. */
export interface ToolPresentation {
	kind: ToolKind;
	title: string;
	locations: ToolCallLocation[];
}

const MAX_TITLE = 120;

function stringArg(args: Record<string, unknown>, key: string): string | undefined {
	const value = args[key];
	return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

function numberArg(args: Record<string, unknown>, key: string): number | undefined {
	const value = args[key];
	return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** A path as a person reads it: relative inside the working directory, absolute outside it. */
export function displayPath(absolutePath: string, cwd: string): string {
	const inside = relative(cwd, absolutePath);
	if (inside === "") return ".";
	return inside.startsWith("..") || isAbsolute(inside) ? absolutePath : inside;
}

function shorten(text: string): string {
	const line = text.split("\n")[0] ?? "";
	const more = line.length < text.trimEnd().length ? " …" : "";
	return line.length > MAX_TITLE ? `${line.slice(0, MAX_TITLE - 1)}…` : `${line}${more}`;
}

/** Kind, title and locations of a call of `toolName` with `args` in a session working in `cwd`. */
export function presentToolCall(toolName: string, args: Record<string, unknown>, cwd: string): ToolPresentation {
	const path = stringArg(args, "path");
	const absolute = path === undefined ? undefined : resolveToolPath(path, cwd);
	const shown = absolute === undefined ? undefined : displayPath(absolute, cwd);
	const at = (line?: number): ToolCallLocation[] =>
		absolute === undefined ? [] : [line === undefined ? { path: absolute } : { path: absolute, line }];
	switch (toolName) {
		case "read": {
			const offset = numberArg(args, "offset");
			const limit = numberArg(args, "limit");
			const range = limit !== undefined ? ` (lines ${offset ?? 1}-${(offset ?? 1) + limit - 1})` : "";
			const from = limit === undefined && offset !== undefined ? ` (from line ${offset})` : "";
			return { kind: "read", title: `Read ${shown ?? "a file"}${range}${from}`, locations: at(offset ?? 1) };
		}
		case "write":
			return { kind: "edit", title: `Write ${shown ?? "a file"}`, locations: at() };
		case "edit":
			return { kind: "edit", title: `Edit ${shown ?? "a file"}`, locations: at() };
		case "bash": {
			const command = stringArg(args, "command");
			return { kind: "execute", title: command ? `Run ${shorten(command)}` : "Run a command", locations: [] };
		}
		case "grep": {
			const pattern = stringArg(args, "pattern");
			const where = shown && shown !== "." ? ` in ${shown}` : "";
			return {
				kind: "search",
				title: `Search for ${pattern ? `"${shorten(pattern)}"` : "text"}${where}`,
				locations: at(),
			};
		}
		case "find": {
			const pattern = stringArg(args, "pattern");
			const where = shown && shown !== "." ? ` in ${shown}` : "";
			return { kind: "search", title: `Find ${pattern ? shorten(pattern) : "files"}${where}`, locations: at() };
		}
		case "ls":
			return { kind: "read", title: `List ${shown ?? "."}`, locations: at() };
		default:
			return presentOtherTool(toolName, absolute);
	}
}

/** MCP tools (`mcp__<server>__<tool>`) and extension tools. */
function presentOtherTool(toolName: string, absolute: string | undefined): ToolPresentation {
	const locations = absolute === undefined ? [] : [{ path: absolute }];
	const mcp = /^mcp__(.+?)__(.+)$/.exec(toolName);
	if (mcp) return { kind: "other", title: `${mcp[2]} (${mcp[1]})`, locations };
	return { kind: "other", title: toolName, locations };
}

/** The absolute path a file tool call works on, if it names one. */
export function toolCallPath(args: Record<string, unknown>, cwd: string): string | undefined {
	const path = stringArg(args, "path");
	return path === undefined ? undefined : resolve(resolveToolPath(path, cwd));
}
