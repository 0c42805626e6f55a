import type { SessionEntry } from "../session/types.js";

/**
 * The session's entries arranged as a tree, built once in linear time. The export builds its own
 * view instead of using the session layer's store: it works from a plain entry array.
 */
export interface SessionIndex {
	entries: readonly SessionEntry[];
	byId: ReadonlyMap<string, SessionEntry>;
	/** The parent each entry is shown under: `null` for roots and for parents that do not exist. */
	parentOf: ReadonlyMap<string, string | null>;
	/** Children of each entry, oldest first. */
	childrenOf: ReadonlyMap<string, readonly SessionEntry[]>;
	roots: readonly SessionEntry[];
	/** Root-first entries of the active branch (empty when the leaf is `null`). */
	activePath: readonly SessionEntry[];
	activeIds: ReadonlySet<string>;
	/** The entry the active branch ends at, if any. */
	leafId: string | null;
	/** Current label of each labelled entry. */
	labels: ReadonlyMap<string, string>;
	/** The latest session name, if one is set. */
	sessionName: string | undefined;
}

function byTimestamp(a: SessionEntry, b: SessionEntry): number {
	return a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0;
}

function collectLabels(entries: readonly SessionEntry[]): Map<string, string> {
	const labels = new Map<string, string>();
	for (const entry of entries) {
		if (entry.type !== "label" || typeof entry.targetId !== "string") continue;
		if (typeof entry.label === "string" && entry.label) labels.set(entry.targetId, entry.label);
		else labels.delete(entry.targetId);
	}
	return labels;
}

function latestSessionName(entries: readonly SessionEntry[]): string | undefined {
	for (let index = entries.length - 1; index >= 0; index--) {
		const entry = entries[index];
		if (entry?.type !== "session_info") continue;
		const name = typeof entry.name === "string" ? entry.name.trim() : "";
		return name || undefined;
	}
	return undefined;
}

function pathTo(leafId: string, byId: ReadonlyMap<string, SessionEntry>, parentOf: ReadonlyMap<string, string | null>) {
	const path: SessionEntry[] = [];
	const seen = new Set<string>();
	let current: string | null | undefined = leafId;
	while (current && !seen.has(current)) {
		seen.add(current);
		const entry = byId.get(current);
		if (!entry) break;
		path.push(entry);
		current = parentOf.get(current);
	}
	return path.reverse();
}

/** Entries caught in a parent cycle are unreachable from any root; each cycle is cut at its first entry. */
function attachCycles(
	entries: readonly SessionEntry[],
	roots: SessionEntry[],
	parentOf: Map<string, string | null>,
	childrenOf: Map<string, SessionEntry[]>,
): void {
	const reached = new Set<string>();
	const visit = (start: SessionEntry) => {
		const stack = [start];
		for (let entry = stack.pop(); entry; entry = stack.pop()) {
			if (reached.has(entry.id)) continue;
			reached.add(entry.id);
			for (const child of childrenOf.get(entry.id) ?? []) stack.push(child);
		}
	};
	for (const root of roots) visit(root);
	for (const entry of entries) {
		if (reached.has(entry.id)) continue;
		const siblings = childrenOf.get(parentOf.get(entry.id) ?? "");
		siblings?.splice(siblings.indexOf(entry), 1);
		parentOf.set(entry.id, null);
		roots.push(entry);
		visit(entry);
	}
}

export function indexSession(entries: readonly SessionEntry[], requestedLeafId: string | null): SessionIndex {
	const byId = new Map<string, SessionEntry>();
	for (const entry of entries) byId.set(entry.id, entry);

	const parentOf = new Map<string, string | null>();
	const childrenOf = new Map<string, SessionEntry[]>();
	const roots: SessionEntry[] = [];
	for (const entry of entries) {
		const parentId = entry.parentId;
		const hasParent = parentId !== null && parentId !== entry.id && byId.has(parentId);
		parentOf.set(entry.id, hasParent ? parentId : null);
		if (!hasParent) {
			roots.push(entry);
			continue;
		}
		const siblings = childrenOf.get(parentId);
		if (siblings) siblings.push(entry);
		else childrenOf.set(parentId, [entry]);
	}
	// Array.sort is stable: entries with equal timestamps keep file order.
	for (const siblings of childrenOf.values()) if (siblings.length > 1) siblings.sort(byTimestamp);
	roots.sort(byTimestamp);
	attachCycles(entries, roots, parentOf, childrenOf);

	// An unknown leaf falls back to the last entry, as context building does.
	const leafId =
		requestedLeafId === null ? null : byId.has(requestedLeafId) ? requestedLeafId : (entries.at(-1)?.id ?? null);
	const activePath = leafId === null ? [] : pathTo(leafId, byId, parentOf);

	return {
		entries,
		byId,
		parentOf,
		childrenOf,
		roots,
		activePath,
		activeIds: new Set(activePath.map((entry) => entry.id)),
		leafId,
		labels: collectLabels(entries),
		sessionName: latestSessionName(entries),
	};
}
