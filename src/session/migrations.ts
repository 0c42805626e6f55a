import { migratedEntryId } from "./ids.js";
import { isRecord } from "./message-guards.js";
import { CURRENT_SESSION_VERSION, type SessionHeader } from "./types.js";

/**
 * Brings the parsed lines of an older file to the current format, in memory (§1.10):
 * - version 1 (no `version` field): entries get ids and are chained linearly in file order
 *   (each one's parent is the line before it); a compaction's `firstKeptEntryIndex` (an index
 *   into the entry list) becomes `firstKeptEntryId`. The ids are derived from the session id and
 *   the position, so reloading an unmodified file yields the same ids.
 * - version 2: the message role `hookMessage` is renamed `custom`.
 * The file itself is not touched here; the session rewrites it once, as version 3, before its
 * first append (appending current entries to an old file would leave parent ids that the next
 * load could not resolve).
 *
 * Returns the version the file had (the header is updated to the current one).
 */
export function migrateRecords(header: SessionHeader, records: Record<string, unknown>[]): number {
	const version = typeof header.version === "number" ? header.version : 1;
	if (version >= CURRENT_SESSION_VERSION) return version;
	if (version < 2) assignIds(header.id, records);
	for (const record of records) {
		if (record.type === "message" && isRecord(record.message) && record.message.role === "hookMessage") {
			record.message.role = "custom";
		}
	}
	header.version = CURRENT_SESSION_VERSION;
	return version;
}

function assignIds(sessionId: string, records: Record<string, unknown>[]): void {
	const taken = new Set<string>();
	const ids: string[] = [];
	for (const [index, record] of records.entries()) {
		const id = migratedEntryId(sessionId, index, (candidate) => taken.has(candidate));
		taken.add(id);
		ids.push(id);
		record.id = id;
		record.parentId = index === 0 ? null : ids[index - 1];
	}
	for (const record of records) {
		if (record.type !== "compaction" || !("firstKeptEntryIndex" in record)) continue;
		const index = record.firstKeptEntryIndex;
		record.firstKeptEntryId = typeof index === "number" ? (ids[index] ?? null) : null;
		delete record.firstKeptEntryIndex;
	}
}
