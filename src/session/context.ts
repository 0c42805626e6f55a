import type { AgentMessage, CustomMessage } from "../agent/messages.js";
import { THINKING_LEVELS, type ThinkingLevel } from "../llm/types.js";
import { repairInterruptedToolCalls } from "./interrupted-tools.js";
import { isRecord } from "./message-guards.js";
import { renderTranscript, type TranscriptBlock } from "./transcript.js";
import {
	type CompactionEntry,
	isKnownEntry,
	type SessionContext,
	type SessionEntry,
	type SessionModelRef,
} from "./types.js";

export const VERBATIM_COMPACTION_STRATEGY = "verbatim-lines";

/** Opens the synthetic message that stands for everything before a compaction boundary. */
export const COMPACTION_PREAMBLE =
	"Earlier parts of this conversation were compacted: what follows is the verbatim text of the lines that were kept, and each elided span appears as a line reading (filtered N lines).";

/** Whether an entry is a compaction boundary that context building applies. */
export function isActiveCompaction(entry: SessionEntry): entry is CompactionEntry {
	return (
		isKnownEntry(entry) &&
		entry.type === "compaction" &&
		isRecord(entry.details) &&
		entry.details.strategy === VERBATIM_COMPACTION_STRATEGY
	);
}

interface ContextSelection {
	boundary?: CompactionEntry;
	/** Entries from the boundary's first kept entry up to the boundary (replayed as transcript text). */
	kept: SessionEntry[];
	/** Entries emitted as messages: after the boundary, or the whole path without one. */
	after: SessionEntry[];
}

function selectEntries(path: readonly SessionEntry[]): ContextSelection {
	const boundaryIndex = path.findLastIndex(isActiveCompaction);
	const boundary = path[boundaryIndex];
	if (!boundary || !isActiveCompaction(boundary)) {
		return { kept: [], after: withoutRetriedFailures(path) };
	}
	const firstKeptId = boundary.firstKeptEntryId;
	const keptStart = firstKeptId === null ? -1 : path.findIndex((entry) => entry.id === firstKeptId);
	const kept = keptStart >= 0 && keptStart < boundaryIndex ? path.slice(keptStart, boundaryIndex) : [];
	return {
		boundary,
		kept: withoutRetriedFailures(kept),
		after: withoutRetriedFailures(path.slice(boundaryIndex + 1)),
	};
}

/**
 * The entries the context is built from, for a root-to-leaf path: `[boundary, ...kept tail,
 * ...after the boundary]`, or the path's message-bearing entries when there is no boundary.
 */
export function buildContextEntries(path: readonly SessionEntry[]): SessionEntry[] {
	const selection = selectEntries(path);
	const bearing = (entries: SessionEntry[]) => entries.filter((entry) => entryMessage(entry) !== undefined);
	if (!selection.boundary) return bearing(selection.after);
	return [selection.boundary, ...bearing(selection.kept), ...bearing(selection.after)];
}

/** The messages and replayed state (model, thinking level) of a root-to-leaf path (§1.6). */
export function buildSessionContext(path: readonly SessionEntry[]): SessionContext {
	const selection = selectEntries(path);
	const messages: AgentMessage[] = [];
	if (selection.boundary) messages.push(boundaryMessage(selection.boundary, selection.kept));
	for (const entry of selection.after) {
		const message = entryMessage(entry);
		if (message) messages.push(message);
	}
	return { messages: repairInterruptedToolCalls(messages), ...replayState(path) };
}

/** The message an entry contributes to the context, if any. */
export function entryMessage(entry: SessionEntry): AgentMessage | undefined {
	if (!isKnownEntry(entry)) return undefined;
	switch (entry.type) {
		case "message":
			return entry.message;
		case "custom_message": {
			const message: CustomMessage = {
				role: "custom",
				customType: entry.customType,
				content: entry.content,
				display: entry.display,
				timestamp: entryTime(entry),
			};
			if (entry.details !== undefined) message.details = entry.details;
			if (entry.excludeFromContext !== undefined) message.excludeFromContext = entry.excludeFromContext;
			return message;
		}
		case "branch_summary":
			if (!entry.summary) return undefined;
			return { role: "branchSummary", summary: entry.summary, fromId: entry.fromId, timestamp: entryTime(entry) };
		default:
			return undefined;
	}
}

function boundaryMessage(boundary: CompactionEntry, kept: readonly SessionEntry[]): CustomMessage {
	const keptMessages = kept.map(entryMessage).filter((message) => message !== undefined);
	const retained = renderTranscript(keptMessages, "retained");
	const separator = retained.length > 0 && boundary.summary ? "\n\n" : "";
	const blocks: TranscriptBlock[] = [
		{ type: "text", text: `${COMPACTION_PREAMBLE}\n\n${boundary.summary}${separator}` },
	];
	for (const block of retained) {
		const last = blocks.at(-1);
		if (block.type === "text" && last?.type === "text") last.text += block.text;
		else blocks.push(block);
	}
	return {
		role: "custom",
		customType: "compaction",
		content: blocks,
		display: true,
		details: boundary.details,
		timestamp: entryTime(boundary),
	};
}

/**
 * Leaves out assistant replies that failed and were retried: an assistant message with stop
 * reason "error" whose next message on the path (entries that carry no message, such as a
 * model change made for the retry, are skipped) is another assistant message.
 */
function withoutRetriedFailures(entries: readonly SessionEntry[]): SessionEntry[] {
	const keep: SessionEntry[] = [];
	let nextIsAssistant = false;
	for (let index = entries.length - 1; index >= 0; index--) {
		const entry = entries[index];
		if (!entry) continue;
		const message = entryMessage(entry);
		if (message?.role === "assistant" && message.stopReason === "error" && nextIsAssistant) continue;
		if (message) nextIsAssistant = message.role === "assistant";
		keep.push(entry);
	}
	return keep.reverse();
}

function replayState(path: readonly SessionEntry[]): { model: SessionModelRef | null; thinkingLevel: ThinkingLevel } {
	let model: SessionModelRef | null = null;
	let thinkingLevel: ThinkingLevel = "off";
	for (const entry of path) {
		if (!isKnownEntry(entry)) continue;
		if (entry.type === "model_change") model = { provider: entry.provider, modelId: entry.modelId };
		else if (entry.type === "message" && entry.message.role === "assistant")
			model = { provider: entry.message.provider, modelId: entry.message.model };
		else if (entry.type === "thinking_level_change") {
			// Levels this build does not know (written by another program) are ignored.
			thinkingLevel = THINKING_LEVELS.find((level) => level === entry.thinkingLevel) ?? thinkingLevel;
		}
	}
	return { model, thinkingLevel };
}

function entryTime(entry: SessionEntry): number {
	const time = Date.parse(entry.timestamp);
	return Number.isNaN(time) ? 0 : time;
}
