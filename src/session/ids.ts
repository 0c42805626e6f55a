import { cryptoModule } from "../platform/lazy-builtins.js";
import { formatUuid, randomBytes, randomHex, randomUuid } from "../platform/random.js";

const SESSION_ID_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits, so ids sort by
 * creation time.
 */
export function uuidv7(now: number = Date.now()): string {
	const bytes = randomBytes(16);
	let time = Math.floor(now);
	for (let index = 5; index >= 0; index--) {
		bytes[index] = time % 256;
		time = Math.floor(time / 256);
	}
	bytes[6] = 0x70 | ((bytes[6] ?? 0) & 0x0f);
	bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
	return formatUuid(bytes);
}

/** Whether a caller-chosen session id is acceptable (it becomes part of a file name). */
export function isValidSessionId(id: string): boolean {
	return SESSION_ID_PATTERN.test(id);
}

/** A new entry id: 8 hex characters, re-drawn on collision; a full UUID after 100 collisions. */
export function createEntryId(taken: (id: string) => boolean): string {
	for (let attempt = 0; attempt < 100; attempt++) {
		const id = randomHex(4);
		if (!taken(id)) return id;
	}
	return randomUuid();
}

/**
 * The id a migrated first-format entry gets: derived from the session id and the entry's position,
 * so that loading the same unmodified file twice yields the same ids (they work as cursors).
 */
export function migratedEntryId(sessionId: string, index: number, taken: (id: string) => boolean): string {
	for (let attempt = 0; ; attempt++) {
		const seed = attempt === 0 ? `${sessionId}:${index}` : `${sessionId}:${index}:${attempt}`;
		const id = cryptoModule().createHash("sha256").update(seed).digest("hex").slice(0, 8);
		if (!taken(id)) return id;
	}
}
