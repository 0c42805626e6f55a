import type { Static } from "typebox";
import { Type } from "../llm/schema-builders.js";

/** What a server name may contain: it becomes part of tool names (`mcp__<server>__<tool>`). */
export const SERVER_NAME = /^[A-Za-z0-9_-]+$/;

const StringMap = Type.Record(Type.String(), Type.String());

/** A server started as a child process, speaking MCP over its stdin and stdout. */
export const StdioEntrySchema = Type.Object({
	type: Type.Optional(Type.Literal("stdio")),
	command: Type.String({ minLength: 1 }),
	args: Type.Optional(Type.Array(Type.String())),
	env: Type.Optional(StringMap),
	cwd: Type.Optional(Type.String({ minLength: 1 })),
});

/** A server reached over HTTP: streamable HTTP (`http`) or the older HTTP with SSE (`sse`). */
export const RemoteEntrySchema = Type.Object({
	type: Type.Enum(["http", "sse"]),
	url: Type.String({ minLength: 1 }),
	headers: Type.Optional(StringMap),
});

/** The file: `{"mcpServers": {"<name>": <entry>, ...}}`; other top-level keys are left to other tools. */
export const ConfigFileSchema = Type.Object({
	mcpServers: Type.Record(Type.String(), Type.Unknown()),
});

export type StdioEntry = Static<typeof StdioEntrySchema>;
export type RemoteEntry = Static<typeof RemoteEntrySchema>;
