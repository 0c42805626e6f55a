import { type AgentMessage, convertToLlm } from "../agent/messages.js";
import { entryMessage, isActiveCompaction } from "../session/context.js";
import { renderTranscript } from "../session/transcript.js";
import type { SessionEntry } from "../session/types.js";
import { MIN_COMPACTABLE_REGION_LINES } from "./constants.js";
import { createNumberedRegion, type NumberedRegion } from "./numbering.js";
import {
	type CompactionParameters,
	detectCompactionQuery,
	normaliseCompactionParameters,
	type ParameterSources,
} from "./parameters.js";

/** What one compaction works on: the region for the planner and the tail left outside it. */
export interface CompactionPreparation {
	/** The first entry of the kept tail, or null when nothing stays outside the compaction. */
	firstKeptEntryId: string | null;
	region: NumberedRegion;
	/** Entries whose messages were rendered into the region (the previous boundary is not one). */
	regionEntryIds: string[];
	keptTailMessageCount: number;
	/** Estimate of what the kept tail adds to the rebuilt context. */
	tailTokens: number;
	parameters: CompactionParameters;
}

export interface PrepareOptions {
	/** Accept a region under MIN_COMPACTABLE_REGION_LINES (load-bearing compaction must shrink anything it can). */
	allowSmallRegion?: boolean;
}

/** Images weigh as much as 4800 characters in context estimates. */
const IMAGE_CHARACTERS = 4800;

interface VisibleEntry {
	id: string;
	message: AgentMessage;
}

/**
 * Splits the active branch (root..leaf) into the region to compact and the newest
 * `preserve_recent` context-visible messages (§5.3). Undefined when there is nothing to compact:
 * an empty region, or fewer than MIN_COMPACTABLE_REGION_LINES lines without `allowSmallRegion`.
 * `sources.detectedQuery` is filled from the branch when the caller leaves it out.
 */
export function prepareCompaction(
	pathEntries: readonly SessionEntry[],
	sources: ParameterSources = {},
	options: PrepareOptions = {},
): CompactionPreparation | undefined {
	const parameters = normaliseCompactionParameters({
		...sources,
		detectedQuery: sources.detectedQuery ?? detectCompactionQuery(pathEntries),
	});
	const { boundaryIndex, start } = regionStart(pathEntries);
	const visible: VisibleEntry[] = [];
	for (const entry of pathEntries.slice(start)) {
		const message = entryMessage(entry);
		if (message && convertToLlm([message]).length > 0) visible.push({ id: entry.id, message });
	}
	const splitAt = Math.max(0, visible.length - parameters.preserve_recent);
	const regionEntries = visible.slice(0, splitAt);
	const tail = visible.slice(splitAt);

	const boundary = pathEntries[boundaryIndex];
	const previousSummary = boundary && isActiveCompaction(boundary) ? boundary.summary : "";
	const rendered = renderTranscript(
		regionEntries.map((entry) => entry.message),
		"compacted",
	);
	const text = [previousSummary, rendered].filter((part) => part.length > 0).join("\n");
	if (text.length === 0) return undefined;
	const region = createNumberedRegion(text);
	if (region.lines.length < MIN_COMPACTABLE_REGION_LINES && !options.allowSmallRegion) return undefined;
	return {
		firstKeptEntryId: tail[0]?.id ?? null,
		region,
		regionEntryIds: regionEntries.map((entry) => entry.id),
		keptTailMessageCount: tail.length,
		tailTokens: retainedTokens(tail.map((entry) => entry.message)),
		parameters,
	};
}

/**
 * Where the region begins: at the latest boundary's first kept entry when it is on the path
 * (that tail was never compacted), else right after the boundary, else at the root.
 */
function regionStart(pathEntries: readonly SessionEntry[]): { boundaryIndex: number; start: number } {
	const boundaryIndex = pathEntries.findLastIndex((entry) => isActiveCompaction(entry));
	const boundary = pathEntries[boundaryIndex];
	if (!boundary || !isActiveCompaction(boundary)) return { boundaryIndex: -1, start: 0 };
	const keptIndex =
		boundary.firstKeptEntryId === null ? -1 : pathEntries.findIndex((entry) => entry.id === boundary.firstKeptEntryId);
	const start = keptIndex >= 0 && keptIndex < boundaryIndex ? keptIndex : boundaryIndex + 1;
	return { boundaryIndex, start };
}

/** The tail is replayed as retained transcript text, so estimate that form. */
function retainedTokens(messages: readonly AgentMessage[]): number {
	let characters = 0;
	for (const block of renderTranscript(messages, "retained")) {
		characters += block.type === "text" ? block.text.length : IMAGE_CHARACTERS;
	}
	return Math.ceil(characters / 4);
}
