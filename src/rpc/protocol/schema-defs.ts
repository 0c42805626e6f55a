/**
 * Every schema of the RPC protocol under its `$defs` name: the shared types, one definition per
 * command (`command.<type>`), per success response (`response.<command>`, plus `response.error`),
 * per event (`event.<type>`) and per extension UI request (`event.extension_ui_request.<method>`),
 * and the entry points `Command`, `InputRecord`, `Response`, `Event` and `OutputRecord`.
 *
 * The definitions refer to each other by name (`Type.Ref`), so this record is also the context
 * TypeBox validates with: `Value.Check(RPC_SCHEMA_DEFS, RPC_SCHEMA_DEFS.OutputRecord, record)`.
 */
import type { TSchema } from "typebox";
import { Type } from "../../llm/schema-builders.js";
import { COMMANDS, ExtensionUiResponseSchema } from "./commands.js";
import { EVENTS, UI_REQUESTS } from "./event-schemas.js";
import { MCP_TYPES } from "./mcp-schemas.js";
import { ErrorResponseSchema, RESPONSES } from "./response-schemas.js";
import { SESSION_TYPES } from "./session-schemas.js";
import { MESSAGE_TYPES } from "./types.js";

function prefixed(prefix: string, schemas: Record<string, TSchema>): Record<string, TSchema> {
	return Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [`${prefix}${name}`, schema]));
}

function unionOf(names: string[], description: string): TSchema {
	return Type.Union(
		names.map((name) => Type.Ref(name)),
		{ description },
	);
}

const commands = prefixed("command.", COMMANDS);
const responses = { ...prefixed("response.", RESPONSES), "response.error": ErrorResponseSchema };
const uiRequests = prefixed("event.extension_ui_request.", UI_REQUESTS);
const events = {
	...prefixed("event.", EVENTS),
	"event.extension_ui_request": unionOf(Object.keys(uiRequests), "A request of the extension UI sub-protocol"),
	...uiRequests,
};

const ENTRY_POINTS = {
	Command: unionOf(Object.keys(commands), "A command (stdin); each gets exactly one response"),
	InputRecord: unionOf(["Command", "ExtensionUiResponse"], "Any record a client writes to stdin"),
	Response: unionOf(Object.keys(responses), "The one response to a command"),
	Event: unionOf(
		[...Object.keys(prefixed("event.", EVENTS)), "event.extension_ui_request"],
		"Any stdout record that is not a response",
	),
	OutputRecord: unionOf(["Response", "Event"], "Any record Atomic writes to stdout"),
};

export const RPC_SCHEMA_DEFS: Record<string, TSchema> = {
	...MESSAGE_TYPES,
	...SESSION_TYPES,
	...MCP_TYPES,
	ExtensionUiResponse: ExtensionUiResponseSchema,
	...commands,
	...responses,
	...events,
	...ENTRY_POINTS,
};

/** The record fields that decide which definition describes it. */
export interface RecordKind {
	type?: unknown;
	command?: unknown;
	success?: unknown;
	method?: unknown;
}

/**
 * The name of the most specific definition of an output record: `response.<command>` (or
 * `response.error`), `event.extension_ui_request.<method>` or `event.<type>`; undefined when the
 * record's kind has no definition.
 */
export function outputDefinitionName(record: RecordKind): string | undefined {
	let name: string;
	if (record.type === "response") name = record.success === false ? "response.error" : `response.${record.command}`;
	else if (record.type === "extension_ui_request") name = `event.extension_ui_request.${String(record.method)}`;
	else name = `event.${String(record.type)}`;
	return Object.hasOwn(RPC_SCHEMA_DEFS, name) ? name : undefined;
}
