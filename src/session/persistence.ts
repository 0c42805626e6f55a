import type { SessionFileStore } from "./file-store.js";
import { stringifySharing } from "./shared-json.js";
import type { SessionEntry, SessionHeader } from "./types.js";

export function serializeLines(records: readonly object[]): string {
	let text = "";
	for (const record of records) text += `${JSON.stringify(record)}\n`;
	return text;
}

export interface PersistenceState {
	/** The header is in the file (false: the session has no entry yet, or its first write failed). */
	written: boolean;
	/** The file is in an older format: rewrite it as the current one before appending. */
	needsRewrite: boolean;
}

/**
 * When and how a session's entries reach its file: each one as it is appended, so that what a
 * client was told succeeded (a name, a bash result, a model change) is on disk when it is told.
 * A session without entries leaves no file; the first write puts the header and the entries so
 * far (several, for a fork or clone) in one go, later appends one line each.
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
		// A large message the run's records already serialised is not serialised again.
		const parts = stringifySharing(entry, false);
		this.store.append(`${parts ? parts.join("") : JSON.stringify(entry)}\n`);
	}

	/** Writes the header and all entries so far, when there are some and the file does not hold them yet. */
	flushIfReady(header: SessionHeader, entries: readonly SessionEntry[]): void {
		if (this.state.written || entries.length === 0) return;
		this.store.append(serializeLines([header, ...entries]));
		this.state = { written: true, needsRewrite: false };
	}

	close(): void {
		this.store.close();
	}
}
