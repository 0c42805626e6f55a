import { createEntryId } from "./ids.js";
import { isKnownEntry, type LabelEntry, type SessionEntry } from "./types.js";

/**
 * The entries of a session branched from a root-to-leaf `path` (§1.8): the path without its
 * `label` entries (ids kept; an entry whose parent was a dropped label is re-attached to the
 * entry before it), then a fresh `label` entry for every label that targets a path entry, with
 * its original label timestamp, chained after the last path entry. Entries of unknown types are
 * copied like any other.
 */
export function branchedEntries(
	path: readonly SessionEntry[],
	labelOf: (id: string) => { label: string; timestamp: string } | undefined,
): SessionEntry[] {
	const out: SessionEntry[] = [];
	const ids = new Set<string>();
	let parentId: string | null = null;
	for (const entry of path) {
		if (isKnownEntry(entry) && entry.type === "label") continue;
		out.push(entry.parentId === parentId ? entry : { ...entry, parentId });
		ids.add(entry.id);
		parentId = entry.id;
	}
	for (const entry of out.slice()) {
		const label = labelOf(entry.id);
		if (!label) continue;
		const id = createEntryId((candidate) => ids.has(candidate));
		ids.add(id);
		const labelEntry: LabelEntry = {
			type: "label",
			id,
			parentId,
			timestamp: label.timestamp,
			targetId: entry.id,
			label: label.label,
		};
		out.push(labelEntry);
		parentId = id;
	}
	return out;
}
