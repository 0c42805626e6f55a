import type { AgentMessage } from "../agent/messages.js";
import type { ImageContent, TextContent, ThinkingLevel } from "../llm/types.js";

export const CURRENT_SESSION_VERSION = 3;

/**
 * The first line of a session file; not part of the tree. Fields other writers add (`internal`,
 * `workflow`, ...) are kept as they are so that copies and rewrites do not lose them.
 */
export interface SessionHeader {
	type: "session";
	/** Absent in files of the first format version. */
	version?: number;
	id: string;
	timestamp: string;
	cwd: string;
	/** Absolute path of the session this one was forked or cloned from. */
	parentSession?: string;
	[field: string]: unknown;
}

interface EntryBase {
	/** 8 hex characters (a full UUID in the unlikely case of repeated collisions). */
	id: string;
	/** `null` for a root. */
	parentId: string | null;
	/** ISO-8601. */
	timestamp: string;
}

export interface MessageEntry extends EntryBase {
	type: "message";
	message: AgentMessage;
}

export interface ModelChangeEntry extends EntryBase {
	type: "model_change";
	provider: string;
	modelId: string;
}

export interface ThinkingLevelChangeEntry extends EntryBase {
	type: "thinking_level_change";
	/** Kept as written; context building ignores values it does not know. */
	thinkingLevel: string;
}

export interface CompactionEntry extends EntryBase {
	type: "compaction";
	summary: string;
	firstKeptEntryId: string | null;
	tokensBefore: number;
	/** Owned by the compaction layer; only `details.strategy === "verbatim-lines"` is read here. */
	details?: unknown;
	fromHook?: boolean;
}

export interface BranchSummaryEntry extends EntryBase {
	type: "branch_summary";
	/** The entry the summary attaches to, or "root". */
	fromId: string;
	summary: string;
	details?: unknown;
	usage?: unknown;
	fromHook?: boolean;
}

export interface CustomEntry extends EntryBase {
	type: "custom";
	customType: string;
	data?: unknown;
}

export interface CustomMessageEntry extends EntryBase {
	type: "custom_message";
	customType: string;
	content: string | (TextContent | ImageContent)[];
	display: boolean;
	details?: unknown;
	excludeFromContext?: boolean;
}

export interface LabelEntry extends EntryBase {
	type: "label";
	targetId: string;
	/** Absent or empty clears the label. */
	label?: string;
}

export interface SessionInfoEntry extends EntryBase {
	type: "session_info";
	/** Trimmed; an empty string clears the name. */
	name?: string;
}

/**
 * The audit record of a tool approval decision (see src/permissions/record.ts for the meaning of
 * the fields). Not part of the context; `allow_always` and `deny_always` entries bring their `rule`
 * back (as an allow or a deny rule) when the session is opened again.
 */
export interface ToolApprovalEntry extends EntryBase {
	type: "tool_approval";
	toolCallId: string;
	toolName: string;
	decision: "allow" | "allow_always" | "deny" | "deny_always";
	by: "user" | "rule" | "timeout" | "abort";
	rule?: string;
	reason?: string;
	requestId?: string;
	message?: string;
}

/** The entry types this layer understands. */
export type KnownEntry =
	| MessageEntry
	| ModelChangeEntry
	| ThinkingLevelChangeEntry
	| CompactionEntry
	| BranchSummaryEntry
	| CustomEntry
	| CustomMessageEntry
	| LabelEntry
	| SessionInfoEntry
	| ToolApprovalEntry;

export type KnownEntryType = KnownEntry["type"];

/** An entry of a type written by another program: kept in the tree and in copies, never in context. */
export interface ForeignEntry extends EntryBase {
	type: string;
	[field: string]: unknown;
}

export type SessionEntry = KnownEntry | ForeignEntry;

export const KNOWN_ENTRY_TYPES: ReadonlySet<string> = new Set<KnownEntryType>([
	"message",
	"model_change",
	"thinking_level_change",
	"compaction",
	"branch_summary",
	"custom",
	"custom_message",
	"label",
	"session_info",
	"tool_approval",
]);

/** Narrows an entry to the types this layer understands (parsed entries of those types were validated). */
export function isKnownEntry(entry: SessionEntry): entry is KnownEntry {
	return KNOWN_ENTRY_TYPES.has(entry.type);
}

/** An entry as an append call describes it: the store adds `id`, `parentId` and `timestamp`. */
export type NewEntry<T extends KnownEntry = KnownEntry> = T extends KnownEntry ? Omit<T, keyof EntryBase> : never;

export interface TreeNode {
	entry: SessionEntry;
	/** Sorted by entry timestamp, oldest first. */
	children: TreeNode[];
	label?: string;
	labelTimestamp?: string;
}

export interface SessionModelRef {
	provider: string;
	modelId: string;
}

/** What the model sees for the active branch, plus the state replayed from it. */
export interface SessionContext {
	messages: AgentMessage[];
	model: SessionModelRef | null;
	thinkingLevel: ThinkingLevel;
}

/** Where warnings about skipped lines go (one line per load). */
export type WarningSink = (line: string) => void;

export const stderrWarningSink: WarningSink = (line) => {
	process.stderr.write(`${line}\n`);
};
