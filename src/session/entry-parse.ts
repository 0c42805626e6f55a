import { isAgentMessage, isRecord, isUserContent } from "./message-guards.js";
import type { KnownEntryType, SessionEntry, SessionHeader } from "./types.js";

type FieldCheck = (entry: Record<string, unknown>) => boolean;

const isString = (value: unknown): value is string => typeof value === "string";
const isOptionalString = (value: unknown) => value === undefined || typeof value === "string";

const FIELD_CHECKS = new Map<string, FieldCheck>(
	Object.entries({
		message: (entry) => isAgentMessage(entry.message),
		model_change: (entry) => isString(entry.provider) && isString(entry.modelId),
		thinking_level_change: (entry) => isString(entry.thinkingLevel),
		compaction: (entry) =>
			isString(entry.summary) &&
			(entry.firstKeptEntryId === null || isString(entry.firstKeptEntryId)) &&
			typeof entry.tokensBefore === "number",
		branch_summary: (entry) => isString(entry.fromId) && isString(entry.summary),
		custom: (entry) => isString(entry.customType),
		custom_message: (entry) =>
			isString(entry.customType) && isUserContent(entry.content) && typeof entry.display === "boolean",
		label: (entry) => isString(entry.targetId) && isOptionalString(entry.label),
		session_info: (entry) => isOptionalString(entry.name),
		tool_approval: (entry) =>
			isString(entry.toolCallId) &&
			isString(entry.toolName) &&
			(entry.decision === "allow" ||
				entry.decision === "allow_always" ||
				entry.decision === "deny" ||
				entry.decision === "deny_always") &&
			(entry.by === "user" || entry.by === "rule" || entry.by === "timeout" || entry.by === "abort") &&
			isOptionalString(entry.rule),
	} satisfies Record<KnownEntryType, FieldCheck>),
);

/**
 * Tolerated variations of other writers, fixed in place before validation: a message with `null`
 * content gets an empty list; a label of `null` means "cleared".
 */
function normalize(entry: Record<string, unknown>): void {
	if (entry.type === "message" && isRecord(entry.message) && entry.message.content === null) {
		entry.message.content = [];
	}
	if (entry.type === "label" && entry.label === null) delete entry.label;
}

/**
 * Whether a parsed line is a usable entry: the common fields (`type`, `id`, `parentId`,
 * `timestamp`) and, for the known types, their own fields. Unknown types pass with the common
 * fields alone and are kept as foreign entries.
 */
export function isSessionEntry(value: unknown): value is SessionEntry {
	if (!isRecord(value)) return false;
	if (!isString(value.type) || value.type === "session") return false;
	if (!isString(value.id) || value.id === "") return false;
	if (value.parentId !== null && !isString(value.parentId)) return false;
	if (!isString(value.timestamp)) return false;
	normalize(value);
	const check = FIELD_CHECKS.get(value.type);
	return check === undefined || check(value);
}

/** The header a parsed first line describes, or undefined when it is not a session header. */
export function toSessionHeader(value: unknown): SessionHeader | undefined {
	if (!isRecord(value) || value.type !== "session" || !isString(value.id)) return undefined;
	return {
		...value,
		type: "session",
		id: value.id,
		timestamp: isString(value.timestamp) ? value.timestamp : "",
		cwd: isString(value.cwd) ? value.cwd : "",
	};
}
