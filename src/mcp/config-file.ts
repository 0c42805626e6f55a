import { constants } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, isAbsolute, resolve } from "node:path";
import { Value } from "typebox/value";
import { interpolate } from "../llm/credentials.js";
import { fsPromises } from "../platform/lazy-builtins.js";
import { ConfigFileSchema, RemoteEntrySchema, SERVER_NAME, StdioEntrySchema } from "./config-schema.js";
import { schemaProblem } from "./schema-problem.js";
import type { McpServerConfig, McpSource } from "./types.js";

/** A configuration file larger than this is refused (they are a few hundred bytes). */
const MAX_CONFIG_BYTES = 1024 * 1024;

export interface ConfigRead {
	configs: McpServerConfig[];
	/** One line per problem, naming the file and the field; the other servers still load. */
	errors: string[];
	/** There is no such file. */
	missing?: true;
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The text of a configuration file, or undefined when there is none. Opened without blocking, so
 * a FIFO or a device in its place is refused instead of hanging; only a regular file is read.
 */
async function readText(path: string): Promise<string | undefined> {
	let handle: FileHandle;
	try {
		handle = await fsPromises().open(path, constants.O_RDONLY | constants.O_NONBLOCK);
	} catch (error) {
		if (error instanceof Error && "code" in error && error.code === "ENOENT") return undefined;
		throw error;
	}
	try {
		const info = await handle.stat();
		if (!info.isFile()) throw new Error("not a regular file");
		if (info.size > MAX_CONFIG_BYTES) throw new Error(`larger than ${MAX_CONFIG_BYTES} bytes`);
		return await handle.readFile("utf8");
	} finally {
		await handle.close();
	}
}

function expandMap(map: Record<string, string> | undefined, env: NodeJS.ProcessEnv): Record<string, string> {
	return Object.fromEntries(Object.entries(map ?? {}).map(([key, value]) => [key, interpolate(value, env)]));
}

function expandHomePath(path: string): string {
	if (path === "~") return homedir();
	return path.startsWith("~/") ? resolve(homedir(), path.slice(2)) : path;
}

/**
 * One entry of `mcpServers` as a server configuration, or the problem that keeps it from being one.
 * An entry without `type` is stdio, unless it has a `url` and no `command` (then it is `http`).
 */
export function parseEntry(
	name: string,
	raw: unknown,
	context: { source: McpSource; file?: string; env: NodeJS.ProcessEnv },
): McpServerConfig | string {
	const field = `mcpServers.${name}`;
	if (!SERVER_NAME.test(name)) return `${field}: a server name may contain only letters, digits, "_" and "-"`;
	if (!isRecord(raw)) return `${field} must be an object`;
	const remote =
		raw.type === "http" || raw.type === "sse" || (raw.type === undefined && "url" in raw && !("command" in raw));
	if (!remote && raw.type !== undefined && raw.type !== "stdio")
		return `${field}.type must be "stdio", "http" or "sse"`;
	const base = { name, source: context.source, ...(context.file ? { file: context.file } : {}) };
	if (remote) {
		const entry = { ...raw, type: raw.type ?? "http" };
		if (!Value.Check(RemoteEntrySchema, entry)) return schemaProblem(RemoteEntrySchema, entry, field);
		const url = interpolate(entry.url, context.env);
		if (!URL.canParse(url)) return `${field}.url is not a URL: "${url}"`;
		return { ...base, transport: entry.type, url, headers: expandMap(entry.headers, context.env) };
	}
	if (!Value.Check(StdioEntrySchema, raw)) return schemaProblem(StdioEntrySchema, raw, field);
	const config: McpServerConfig = {
		...base,
		transport: "stdio",
		command: raw.command,
		args: raw.args ?? [],
		env: expandMap(raw.env, context.env),
	};
	if (raw.cwd !== undefined) {
		const cwd = expandHomePath(raw.cwd);
		config.cwd = isAbsolute(cwd) ? cwd : resolve(context.file ? dirname(context.file) : process.cwd(), cwd);
	}
	return config;
}

/**
 * Reads a configuration file (`{"mcpServers": {...}}`). A missing file has no servers and no
 * errors; an unreadable or malformed file has one error and no servers; a bad entry has one error
 * and the other entries still load.
 */
export async function readConfigFile(path: string, source: McpSource, env: NodeJS.ProcessEnv): Promise<ConfigRead> {
	const result: ConfigRead = { configs: [], errors: [] };
	let text: string | undefined;
	try {
		text = await readText(path);
	} catch (error) {
		result.errors.push(`${path}: cannot be read (${error instanceof Error ? error.message : String(error)})`);
		return result;
	}
	if (text === undefined) return { ...result, missing: true };
	let data: unknown;
	try {
		data = JSON.parse(text);
	} catch (error) {
		result.errors.push(`${path}: not valid JSON (${error instanceof Error ? error.message : String(error)})`);
		return result;
	}
	if (!isRecord(data) || !Value.Check(ConfigFileSchema, data)) {
		const problem = isRecord(data) ? schemaProblem(ConfigFileSchema, data, "") : "the file must be a JSON object";
		result.errors.push(`${path}: ${problem} (expected {"mcpServers": {"<name>": {...}}})`);
		return result;
	}
	for (const [name, raw] of Object.entries(data.mcpServers)) {
		const parsed = parseEntry(name, raw, { source, file: path, env });
		if (typeof parsed === "string") result.errors.push(`${path}: ${parsed}`);
		else result.configs.push(parsed);
	}
	return result;
}
