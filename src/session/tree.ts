import { isKnownEntry, type SessionEntry, type TreeNode } from "./types.js";

interface LabelState {
	label: string;
	timestamp: string;
}

/** What `add` changed besides pushing the entry, so that a failed append can be undone. */
export interface AddRecord {
	previousLeaf: string | null;
	/** Set when the entry was a label: the target and its label before. */
	label?: { targetId: string; before: LabelState | undefined };
}

/**
 * The entries of a session in append order, indexed by id, with the current leaf and the label
 * of each entry. Every lookup is a map access; building the whole tree is linear.
 */
export class SessionTree {
	private readonly list: SessionEntry[] = [];
	private readonly byId = new Map<string, SessionEntry>();
	private readonly positionById = new Map<string, number>();
	private readonly labels = new Map<string, LabelState>();
	private leaf: string | null = null;

	constructor(entries: readonly SessionEntry[] = []) {
		for (const entry of entries) this.add(entry);
	}

	get leafId(): string | null {
		return this.leaf;
	}

	get size(): number {
		return this.list.length;
	}

	/** Adds an entry (its parent is whatever it names) and makes it the leaf. */
	add(entry: SessionEntry): AddRecord {
		const record: AddRecord = { previousLeaf: this.leaf };
		this.positionById.set(entry.id, this.list.length);
		this.list.push(entry);
		this.byId.set(entry.id, entry);
		if (isKnownEntry(entry) && entry.type === "label") {
			record.label = { targetId: entry.targetId, before: this.labels.get(entry.targetId) };
			if (entry.label) this.labels.set(entry.targetId, { label: entry.label, timestamp: entry.timestamp });
			else this.labels.delete(entry.targetId);
		}
		this.leaf = entry.id;
		return record;
	}

	/** Removes the entry added last, restoring what `add` changed. */
	undoLastAdd(record: AddRecord): void {
		const entry = this.list.pop();
		if (!entry) return;
		this.byId.delete(entry.id);
		this.positionById.delete(entry.id);
		if (record.label) {
			if (record.label.before) this.labels.set(record.label.targetId, record.label.before);
			else this.labels.delete(record.label.targetId);
		}
		this.leaf = record.previousLeaf;
	}

	/** Moves the leaf; `null` means an empty conversation. */
	setLeaf(id: string | null): void {
		if (id !== null && !this.byId.has(id)) throw new Error(`Entry ${id} not found`);
		this.leaf = id;
	}

	has(id: string): boolean {
		return this.byId.has(id);
	}

	get(id: string): SessionEntry | undefined {
		return this.byId.get(id);
	}

	/** All entries in append order (a read-only view, not a copy). */
	entries(): readonly SessionEntry[] {
		return this.list;
	}

	/** The entries strictly after `id` in append order. */
	entriesSince(id: string): SessionEntry[] {
		const position = this.positionById.get(id);
		if (position === undefined) throw new Error(`Entry not found: ${id}`);
		return this.list.slice(position + 1);
	}

	labelOf(id: string): { label: string; timestamp: string } | undefined {
		return this.labels.get(id);
	}

	children(id: string): SessionEntry[] {
		return this.list.filter((entry) => entry.parentId === id && entry.id !== id);
	}

	/** Root to `fromId` (default: the leaf). A broken or cyclic parent chain ends the walk. */
	branch(fromId: string | null = this.leaf): SessionEntry[] {
		if (fromId === null) return [];
		let entry = this.byId.get(fromId);
		if (!entry) throw new Error(`Entry ${fromId} not found`);
		const path: SessionEntry[] = [];
		const seen = new Set<string>();
		while (entry && !seen.has(entry.id)) {
			seen.add(entry.id);
			path.push(entry);
			entry = entry.parentId === null ? undefined : this.byId.get(entry.parentId);
		}
		return path.reverse();
	}

	/**
	 * The whole tree. An entry whose parent is null, itself or missing is a root; children are
	 * sorted by timestamp. Entries caught in a parent cycle become roots too, so every entry
	 * appears exactly once and the result has no cycles.
	 */
	tree(): TreeNode[] {
		const nodes = this.list.map((entry): TreeNode => {
			const node: TreeNode = { entry, children: [] };
			const label = this.labels.get(entry.id);
			if (label) {
				node.label = label.label;
				node.labelTimestamp = label.timestamp;
			}
			return node;
		});
		const nodeById = new Map<string, TreeNode>();
		for (const node of nodes) nodeById.set(node.entry.id, node);
		const roots: TreeNode[] = [];
		const parentOf = new Map<TreeNode, TreeNode>();
		for (const node of nodes) {
			const { id, parentId } = node.entry;
			const parent = parentId === null || parentId === id ? undefined : nodeById.get(parentId);
			if (parent) {
				parent.children.push(node);
				parentOf.set(node, parent);
			} else {
				roots.push(node);
			}
		}
		const visited = new Set<TreeNode>();
		const visit = (start: TreeNode) => {
			const stack = [start];
			for (let node = stack.pop(); node; node = stack.pop()) {
				visited.add(node);
				for (const child of node.children) stack.push(child);
			}
		};
		for (const root of roots) visit(root);
		for (const node of nodes) {
			if (visited.has(node)) continue;
			const parent = parentOf.get(node);
			if (parent) parent.children.splice(parent.children.indexOf(node), 1);
			roots.push(node);
			visit(node);
		}
		for (const node of nodes) {
			if (node.children.length > 1) node.children.sort(byTimestamp);
		}
		return roots;
	}
}

function byTimestamp(a: TreeNode, b: TreeNode): number {
	if (a.entry.timestamp === b.entry.timestamp) return 0;
	return a.entry.timestamp < b.entry.timestamp ? -1 : 1;
}
