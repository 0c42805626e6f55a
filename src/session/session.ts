import { type AgentMessage, messageText } from "../agent/messages.js";
import type { ThinkingLevel } from "../llm/types.js";
import { copyRegularFileSync } from "../platform/regular-file.js";
import { buildContextEntries, buildSessionContext } from "./context.js";
import { branchedEntries } from "./fork.js";
import { createEntryId } from "./ids.js";
import { createHeader, newFileSessionInit, type ResolvedStoreOptions, type SessionInit } from "./new-session.js";
import { backupFilePath } from "./paths.js";
import type { SessionPersistence } from "./persistence.js";
import { SessionTree } from "./tree.js";
import {
	type BranchSummaryEntry,
	type CompactionEntry,
	type CustomEntry,
	type CustomMessageEntry,
	isKnownEntry,
	type KnownEntry,
	type LabelEntry,
	type MessageEntry,
	type ModelChangeEntry,
	type NewEntry,
	type SessionContext,
	type SessionEntry,
	type SessionHeader,
	type SessionInfoEntry,
	type ThinkingLevelChangeEntry,
	type ToolApprovalEntry,
	type TreeNode,
} from "./types.js";

/** Refusal to branch a session whose file does not hold it (its first write failed). */
export const NOT_SAVED_MESSAGE =
	"This session has not been saved yet. Wait for the first assistant response before cloning or forking it.";

/**
 * One conversation: an append-only tree of entries with a movable leaf, backed by a JSONL file
 * (or memory only). Appends go under the leaf and reach the file as one line each; a failed
 * append throws and leaves both the file and this object as they were. Operations that make
 * another session (fork, clone) return a new `Session`; this one stays open until `close()`.
 */
export class Session {
	private readonly tree: SessionTree;
	private readonly sessionHeader: SessionHeader;
	private readonly persistence: SessionPersistence | undefined;
	private readonly options: ResolvedStoreOptions;
	/** Where sessions made from this one go; undefined in memory. */
	readonly sessionDir: string | undefined;
	private readonly cwdOverride: string | undefined;
	private closed = false;
	/** `name` as of the first `count` entries (the last of them is `last`): later reads scan only what came after. */
	private nameCache: { count: number; last: SessionEntry | undefined; name: string | undefined } | undefined;

	constructor(init: SessionInit) {
		this.sessionHeader = init.header;
		this.tree = new SessionTree(init.entries);
		this.persistence = init.persistence;
		this.sessionDir = init.sessionDir;
		this.cwdOverride = init.cwd;
		this.options = init.options;
	}

	get header(): Readonly<SessionHeader> {
		return this.sessionHeader;
	}

	get id(): string {
		return this.sessionHeader.id;
	}

	/** The working directory: the header's, unless the session was opened with another one. */
	get cwd(): string {
		return this.cwdOverride ?? this.sessionHeader.cwd;
	}

	/** The session file's path; undefined for an in-memory session. It may not exist yet. */
	get file(): string | undefined {
		return this.persistence?.path;
	}

	/** Whether the session is in its file (false before its first entry, and always in memory). */
	get isPersisted(): boolean {
		return this.persistence?.written ?? false;
	}

	get leafId(): string | null {
		return this.tree.leafId;
	}

	/** All entries in append order, without the header (a read-only view). */
	entries(): readonly SessionEntry[] {
		return this.tree.entries();
	}

	/** The entries strictly after `id` in append order, and the current leaf (a durable cursor). */
	entriesSince(id: string): { entries: SessionEntry[]; leafId: string | null } {
		return { entries: this.tree.entriesSince(id), leafId: this.tree.leafId };
	}

	getEntry(id: string): SessionEntry | undefined {
		return this.tree.get(id);
	}

	getLeafEntry(): SessionEntry | undefined {
		return this.tree.leafId === null ? undefined : this.tree.get(this.tree.leafId);
	}

	getChildren(id: string): SessionEntry[] {
		return this.tree.children(id);
	}

	getTree(): TreeNode[] {
		return this.tree.tree();
	}

	/** Root to `fromId` (default: the leaf). */
	getBranch(fromId?: string): SessionEntry[] {
		return this.tree.branch(fromId ?? this.tree.leafId);
	}

	getLabel(id: string): string | undefined {
		return this.tree.labelOf(id)?.label;
	}

	buildContext(): SessionContext {
		return buildSessionContext(this.getBranch());
	}

	buildContextEntries(): SessionEntry[] {
		return buildContextEntries(this.getBranch());
	}

	/** The latest `session_info` name; undefined when none was set or it was cleared. */
	get name(): string | undefined {
		const entries = this.tree.entries();
		const cache = this.nameCache;
		// Entries are only appended (an undone append is caught by `last`): what was scanned stays scanned.
		const from = cache && cache.count <= entries.length && entries[cache.count - 1] === cache.last ? cache.count : 0;
		let name = from > 0 ? cache?.name : undefined;
		for (let index = entries.length - 1; index >= from; index--) {
			const entry = entries[index];
			if (entry && isKnownEntry(entry) && entry.type === "session_info") {
				name = entry.name?.trim() || undefined;
				break;
			}
		}
		this.nameCache = { count: entries.length, last: entries.at(-1), name };
		return name;
	}

	/** User messages with text, across all branches in append order (candidates for `forkBefore`). */
	userMessagesForForking(): { entryId: string; text: string }[] {
		const out: { entryId: string; text: string }[] = [];
		for (const entry of this.tree.entries()) {
			if (!isKnownEntry(entry) || entry.type !== "message" || entry.message.role !== "user") continue;
			const text = messageText(entry.message);
			if (text) out.push({ entryId: entry.id, text });
		}
		return out;
	}

	/**
	 * Appends an entry under the leaf, makes it the leaf and writes it to the file before returning.
	 * When the file cannot be updated the error is thrown and nothing changed: the file is back to
	 * its previous size, the entry is gone and the leaf is where it was.
	 */
	append<T extends KnownEntry>(fields: NewEntry<T>): T;
	append(fields: NewEntry): KnownEntry {
		this.assertOpen();
		const entry: KnownEntry = {
			...fields,
			id: createEntryId((id) => this.tree.has(id)),
			parentId: this.tree.leafId,
			timestamp: new Date().toISOString(),
		};
		const record = this.tree.add(entry);
		try {
			this.persistence?.persist(this.sessionHeader, this.tree.entries(), entry);
		} catch (error) {
			this.tree.undoLastAdd(record);
			throw error;
		}
		return entry;
	}

	appendMessage(message: AgentMessage): MessageEntry {
		return this.append<MessageEntry>({ type: "message", message });
	}

	appendModelChange(provider: string, modelId: string): ModelChangeEntry {
		return this.append<ModelChangeEntry>({ type: "model_change", provider, modelId });
	}

	appendThinkingLevelChange(thinkingLevel: ThinkingLevel): ThinkingLevelChangeEntry {
		return this.append<ThinkingLevelChangeEntry>({ type: "thinking_level_change", thinkingLevel });
	}

	appendCompaction(fields: Omit<NewEntry<CompactionEntry>, "type">): CompactionEntry {
		return this.append<CompactionEntry>({ type: "compaction", ...fields });
	}

	appendCustomEntry(customType: string, data?: unknown): CustomEntry {
		return this.append<CustomEntry>(
			data === undefined ? { type: "custom", customType } : { type: "custom", customType, data },
		);
	}

	appendToolApproval(fields: Omit<NewEntry<ToolApprovalEntry>, "type">): ToolApprovalEntry {
		return this.append<ToolApprovalEntry>({ type: "tool_approval", ...fields });
	}

	appendCustomMessage(fields: Omit<NewEntry<CustomMessageEntry>, "type">): CustomMessageEntry {
		return this.append<CustomMessageEntry>({ type: "custom_message", ...fields });
	}

	/**
	 * Moves the leaf to `fromId` (null: before the first entry) and appends a branch summary there;
	 * its `fromId` field names that attach point ("root" for null).
	 */
	branchWithSummary(
		fromId: string | null,
		summary: string,
		extra: Omit<NewEntry<BranchSummaryEntry>, "type" | "fromId" | "summary"> = {},
	): BranchSummaryEntry {
		const previousLeaf = this.tree.leafId;
		this.tree.setLeaf(fromId);
		try {
			return this.append<BranchSummaryEntry>({ type: "branch_summary", fromId: fromId ?? "root", summary, ...extra });
		} catch (error) {
			this.tree.setLeaf(previousLeaf);
			throw error;
		}
	}

	/** Sets (or, with no label, clears) the label of an entry. */
	setLabel(targetId: string, label?: string): LabelEntry {
		if (!this.tree.has(targetId)) throw new Error(`Entry ${targetId} not found`);
		return this.append<LabelEntry>(label ? { type: "label", targetId, label } : { type: "label", targetId });
	}

	setName(name: string): SessionInfoEntry {
		const trimmed = name.trim();
		if (!trimmed) throw new Error("Session name cannot be empty");
		return this.append<SessionInfoEntry>({ type: "session_info", name: trimmed });
	}

	/** Moves the leaf to an existing entry (nothing is written). */
	branch(id: string): void {
		this.tree.setLeaf(id);
	}

	/** Moves the leaf before the first entry: the next append starts a new root. */
	resetLeaf(): void {
		this.tree.setLeaf(null);
	}

	/**
	 * A new session holding the branch up to just before a user message, and that message's text
	 * (for an editor to prefill). The new file names this one as its `parentSession`.
	 */
	forkBefore(entryId: string): { session: Session; text: string } {
		const entry = this.tree.get(entryId);
		if (!entry || !isKnownEntry(entry) || entry.type !== "message" || entry.message.role !== "user") {
			throw new Error("Invalid entry ID for forking");
		}
		this.assertSaved();
		const parentId = entry.parentId !== null && this.tree.has(entry.parentId) ? entry.parentId : null;
		return { session: this.branchedSession(parentId), text: messageText(entry.message) };
	}

	/** A new session holding the whole active branch, positioned at the current leaf. */
	cloneAtLeaf(): Session {
		if (this.tree.leafId === null) throw new Error("Cannot clone session: no current entry selected");
		this.assertSaved();
		return this.branchedSession(this.tree.leafId);
	}

	/**
	 * Copies the whole current file (header and entries) to `<file>.<time>.<label>.bak` and returns
	 * that path; undefined in memory or before the file exists (there is nothing to lose yet).
	 */
	writeBackup(label = "compact"): string | undefined {
		if (!this.persistence?.written) return undefined;
		const path = backupFilePath(this.persistence.path, label);
		copyRegularFileSync(this.persistence.path, path, { maxBytes: this.options.limits.maxFileBytes });
		return path;
	}

	/** Releases the file (another writer may open it); later appends throw. */
	close(): void {
		if (this.closed) return;
		this.closed = true;
		this.persistence?.close();
	}

	private branchedSession(leafId: string | null): Session {
		const path = leafId === null ? [] : this.tree.branch(leafId);
		const entries = branchedEntries(path, (id) => this.tree.labelOf(id));
		if (!this.persistence || this.sessionDir === undefined) {
			return new Session({ header: createHeader({ cwd: this.cwd }), entries, options: this.options });
		}
		const header = createHeader({ cwd: this.cwd, parentSession: this.persistence.path });
		return new Session(newFileSessionInit(header, this.sessionDir, entries, this.options));
	}

	private assertSaved(): void {
		if (this.persistence && !this.persistence.written) throw new Error(NOT_SAVED_MESSAGE);
	}

	private assertOpen(): void {
		if (this.closed) throw new Error(`Session ${this.id} is closed`);
	}
}
