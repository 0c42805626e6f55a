import { Value } from "typebox/value";
import { Type } from "../llm/schema-builders.js";
import { schemaProblem } from "./schema-problem.js";
import { DEFAULT_MCP_SETTINGS, type McpSettings } from "./types.js";

const Milliseconds = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });

/** `mcp` in settings.json; every key optional, unknown keys left alone. */
const McpSettingsSchema = Type.Object({
	projectServers: Type.Optional(Type.Enum(["allow", "deny"])),
	startupTimeoutMs: Type.Optional(Milliseconds),
	toolTimeoutMs: Type.Optional(Milliseconds),
});

export interface McpSettingsRead {
	settings: McpSettings;
	/** A bad value is reported here and its default used. */
	errors: string[];
}

function read(value: unknown, where: string, errors: string[]): Partial<McpSettings> {
	if (value === undefined) return {};
	if (Value.Check(McpSettingsSchema, value)) return value;
	errors.push(`${where}: ${schemaProblem(McpSettingsSchema, value, "mcp")}; the defaults are used`);
	return {};
}

/**
 * The MCP settings from the `mcp` values of settings.json. `user` is the user's own file and
 * `effective` the merge with the project's `.atomic/settings.json`: `projectServers` is read from
 * the user's file only, so that a repository cannot allow its own servers.
 */
export function readMcpSettings(user: unknown, effective: unknown, where = "settings.json"): McpSettingsRead {
	const errors: string[] = [];
	const fromUser = read(user, where, errors);
	const merged = read(effective, where, errors);
	return {
		settings: {
			projectServers: fromUser.projectServers ?? DEFAULT_MCP_SETTINGS.projectServers,
			startupTimeoutMs: merged.startupTimeoutMs ?? DEFAULT_MCP_SETTINGS.startupTimeoutMs,
			toolTimeoutMs: merged.toolTimeoutMs ?? DEFAULT_MCP_SETTINGS.toolTimeoutMs,
		},
		errors: [...new Set(errors)],
	};
}
