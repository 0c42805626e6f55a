import { messageText } from "../agent/messages.js";
import { toSessionHeader } from "./entry-parse.js";
import { nodeIo, type SessionIo } from "./io.js";
import { DEFAULT_SESSION_LIMITS, type SessionLimits } from "./limits.js";
import { readLines } from "./line-reader.js";
import { isAgentMessage, isRecord } from "./message-guards.js";

/** Listings show the start of the first message; longer text is cut so the index stays small. */
export const FIRST_MESSAGE_MAX_CHARS = 1000;

/** What listing needs from a session file, built up line by line as the file grows. */
export interface SessionScanState {
	header?: { id: string; cwd: string; timestamp: string; parentSession?: string };
	/** The first usable line was not a session header. */
	notSession: boolean;
	messageCount: number;
	/** The latest `session_info` name (absent: never set, or cleared). */
	name?: string;
	firstMessage?: string;
	/** Time of the latest user or assistant message (ms). */
	lastActivityMs?: number;
}

export function emptyScanState(): SessionScanState {
	return { notSession: false, messageCount: 0 };
}

/**
 * Reads the complete lines of `path` from byte `from` and folds them into `state` (mutated).
 * Returns the offset just after the last complete line: the next scan starts there, so a torn
 * last line is read again once it is complete. Throws `LineTooLongError` for a line over the
 * limit, and `NotARegularFileError` for what is not a regular file.
 */
export function scanSessionLines(
	path: string,
	from: number,
	state: SessionScanState,
	io: SessionIo = nodeIo,
	limits: SessionLimits = DEFAULT_SESSION_LIMITS,
): number {
	const fd = io.open(path, "r");
	try {
		const onLine = (text: string) => {
			if (state.notSession || text.trim() === "") return;
			const record = parseRecord(text);
			if (record) foldRecord(state, record);
		};
		return readLines(io, fd, from, onLine, { maxLineBytes: limits.maxLineBytes, end: io.size(fd) }).completeEnd;
	} finally {
		io.close(fd);
	}
}

function parseRecord(text: string): Record<string, unknown> | undefined {
	try {
		const value: unknown = JSON.parse(text);
		return isRecord(value) ? value : undefined;
	} catch (error) {
		// Torn or foreign lines are skipped here exactly as loading skips them.
		if (error instanceof SyntaxError) return undefined;
		throw error;
	}
}

function foldRecord(state: SessionScanState, record: Record<string, unknown>): void {
	if (!state.header) {
		const header = toSessionHeader(record);
		if (!header) {
			state.notSession = true;
			return;
		}
		state.header = { id: header.id, cwd: header.cwd, timestamp: header.timestamp };
		if (typeof header.parentSession === "string") state.header.parentSession = header.parentSession;
		return;
	}
	if (record.type === "session_info") {
		state.name = typeof record.name === "string" && record.name.trim() ? record.name.trim() : undefined;
		return;
	}
	if (record.type !== "message") return;
	state.messageCount++;
	const message = record.message;
	if (!isAgentMessage(message) || (message.role !== "user" && message.role !== "assistant")) return;
	const entryTime = typeof record.timestamp === "string" ? Date.parse(record.timestamp) : Number.NaN;
	const time = typeof message.timestamp === "number" ? message.timestamp : entryTime;
	if (!Number.isNaN(time)) state.lastActivityMs = Math.max(state.lastActivityMs ?? time, time);
	if (message.role === "user" && state.firstMessage === undefined) {
		const text = messageText(message);
		if (text.trim()) state.firstMessage = text.slice(0, FIRST_MESSAGE_MAX_CHARS);
	}
}
