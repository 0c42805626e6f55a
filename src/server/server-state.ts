import { chmodSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ensureDirectorySync } from "../platform/ensure-directory.js";
import { MAX_CONFIG_FILE_BYTES, readOptionalTextFileSync } from "../platform/regular-file.js";

/** What `atomic serve` keeps of a session across its own restarts. */
export interface KeptSession {
	id: string;
	/** The session file (sessions that are not stored are not kept). */
	file: string;
	cwd: string;
	/** The seq of its last event: a restarted server numbers on from it. */
	seq: number;
	/** Tool approval requests were open: the restarted server reopens it and asks them again. */
	waiting: boolean;
	/** `seq` is its last event's (the server stopped or unloaded it); false while it is live. */
	clean: boolean;
}

/**
 * How far a session's numbering jumps after a server that ended without writing its last seq
 * (killed): no number of the lost stretch is given again, so a client that saw some of it gets
 * a resync rather than other events under the same numbers.
 */
export const SEQ_JUMP_AFTER_CRASH = 1_000_000;

/** How many sessions the file remembers (the most recently changed). */
const MAX_KEPT = 1000;

function isKeptSession(value: unknown): value is KeptSession {
	if (typeof value !== "object" || value === null) return false;
	if (!("id" in value && "file" in value && "cwd" in value && "seq" in value && "waiting" in value)) return false;
	return (
		typeof value.id === "string" &&
		typeof value.file === "string" &&
		typeof value.cwd === "string" &&
		typeof value.seq === "number" &&
		Number.isInteger(value.seq) &&
		value.seq >= 0 &&
		typeof value.waiting === "boolean" &&
		"clean" in value &&
		typeof value.clean === "boolean"
	);
}

/**
 * `<agentDir>/serve/sessions.json` (mode 0600): the sessions of `atomic serve`, with the seq of
 * their last event and whether approvals were open. Written when an approval opens or closes,
 * when a session is unloaded, and at shutdown; read at start. A file that cannot be read is
 * reported and ignored: sessions then start their seq again and nothing is asked again.
 */
export class ServerState {
	readonly path: string;
	private readonly kept = new Map<string, KeptSession>();

	constructor(
		agentDir: string,
		private readonly warn: (line: string) => void,
	) {
		this.path = join(agentDir, "serve", "sessions.json");
		try {
			for (const session of this.read()) this.kept.set(session.id, session);
		} catch (error) {
			this.warn(`Ignoring ${this.path}: ${error instanceof Error ? error.message : String(error)}`);
		}
	}

	/** The kept sessions that were waiting for approvals. */
	waiting(): KeptSession[] {
		return [...this.kept.values()].filter((session) => session.waiting);
	}

	/** The seq a reopened session numbers on from (0 for one never kept). */
	seqOf(id: string): number {
		const kept = this.kept.get(id);
		if (!kept) return 0;
		return kept.clean ? kept.seq : kept.seq + SEQ_JUMP_AFTER_CRASH;
	}

	/** Records sessions (replacing what was kept of them) and writes the file. */
	update(sessions: readonly KeptSession[]): void {
		for (const session of sessions) {
			// The most recently changed last, so that the oldest go first past the limit.
			this.kept.delete(session.id);
			this.kept.set(session.id, session);
		}
		for (const id of this.kept.keys()) {
			if (this.kept.size <= MAX_KEPT) break;
			this.kept.delete(id);
		}
		try {
			this.write();
		} catch (error) {
			this.warn(`Cannot write ${this.path}: ${error instanceof Error ? error.message : String(error)}`);
		}
	}

	private read(): KeptSession[] {
		const text = readOptionalTextFileSync(this.path, { maxBytes: MAX_CONFIG_FILE_BYTES });
		if (text === undefined) return [];
		const data: unknown = JSON.parse(text);
		const sessions = typeof data === "object" && data !== null && "sessions" in data ? data.sessions : undefined;
		if (!Array.isArray(sessions)) throw new Error('not {"sessions": [...]}');
		return sessions.filter(isKeptSession);
	}

	private write(): void {
		ensureDirectorySync(dirname(this.path));
		const temporary = `${this.path}.${process.pid}.tmp`;
		writeFileSync(temporary, `${JSON.stringify({ sessions: [...this.kept.values()] }, null, 2)}\n`, { mode: 0o600 });
		chmodSync(temporary, 0o600);
		renameSync(temporary, this.path);
	}
}
