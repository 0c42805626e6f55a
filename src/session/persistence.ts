import type { SessionFileStore } from "./file-store.js";
import { isKnownEntry, type SessionEntry, type SessionHeader } from "./types.js";

export function serializeLines(records: readonly object[]): string {
	let text = "";
	for (const record of records) text += `${JSON.stringify(record)}\n`;
	return text;
}

function isAssistantEntry(entry: SessionEntry): boolean {
	return isKnownEntry(entry) && entry.type === "message" && entry.message.role === "assistant";
}

export interface PersistenceState {
	/** The header is in the file (false: entries are buffered until the first assistant message). */
	written: boolean;
	/** The file is in an older format: rewrite it as the current one before appending. */
	needsRewrite: boolean;
}

/**
 * When and how a session's entries reach its file. Nothing is written until the conversation has
 * an assistant message (a session that never got a reply leaves no file); the first flush writes
 * the header and every buffered entry, later appends one line each.
 */
export class SessionPersistence {
	private state: PersistenceState;

	constructor(
		readonly store: SessionFileStore,
		state: PersistenceState,
	) {
		this.state = { ...state };
	}

	get path(): string {
		return this.store.path;
	}

	/** Whether the file holds the session (the header and the entries so far). */
	get written(): boolean {
		return this.state.written;
	}

	/**
	 * Makes the file reflect `entries` after `entry` was appended in memory. Throws when the file
	 * could not be updated; the file is then as it was before the call.
	 */
	persist(header: SessionHeader, entries: readonly SessionEntry[], entry: SessionEntry): void {
		if (!this.state.written) {
			this.flushIfReady(header, entries);
			return;
		}
		if (!this.store.isOpen && !this.store.exists()) {
			// The file was removed since it was loaded: a lone line would make a file without a header.
			this.store.append(serializeLines([header, ...entries]));
			this.state.needsRewrite = false;
			return;
		}
		if (this.state.needsRewrite) {
			this.store.replace(serializeLines([header, ...entries]));
			this.state.needsRewrite = false;
			return;
		}
		this.store.append(`${JSON.stringify(entry)}\n`);
	}

	/** Writes the header and all buffered entries once they hold an assistant message. */
	flushIfReady(header: SessionHeader, entries: readonly SessionEntry[]): void {
		if (this.state.written || !entries.some(isAssistantEntry)) return;
		this.store.append(serializeLines([header, ...entries]));
		this.state = { written: true, needsRewrite: false };
	}

	close(): void {
		this.store.close();
	}
}
