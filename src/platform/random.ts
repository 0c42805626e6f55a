import { closeSync, openSync, readSync } from "node:fs";
import { cryptoModule } from "./lazy-builtins.js";

/**
 * Random bytes for ids and tokens, from the operating system's generator. Where /dev/urandom
 * exists it is read directly, a pool at a time, so that start-up (a new session's id) does not
 * load node:crypto, which takes milliseconds; elsewhere, or if it cannot be read, node:crypto's
 * randomBytes. Both draw from the same kind of source: the kernel's CSPRNG.
 */
const POOL_BYTES = 512;
let pool: Buffer = Buffer.alloc(0);
let used = 0;
/** /dev/urandom could not be read once: node:crypto from then on. */
let urandomFailed = process.platform === "win32";

function fillFromUrandom(size: number): Buffer | undefined {
	if (urandomFailed) return undefined;
	try {
		const fd = openSync("/dev/urandom", "r");
		try {
			const bytes = Buffer.allocUnsafe(size);
			let filled = 0;
			while (filled < size) {
				const read = readSync(fd, bytes, filled, size - filled, null);
				if (read <= 0) throw new Error("/dev/urandom ended");
				filled += read;
			}
			return bytes;
		} finally {
			closeSync(fd);
		}
	} catch (error) {
		urandomFailed = true;
		process.emitWarning(
			`Could not read /dev/urandom, using node:crypto: ${error instanceof Error ? error.message : String(error)}`,
			"AtomicRandomWarning",
		);
		return undefined;
	}
}

/** `size` fresh random bytes; no two calls share any. */
export function randomBytes(size: number): Buffer {
	if (size > POOL_BYTES) return fillFromUrandom(size) ?? cryptoModule().randomBytes(size);
	if (used + size > pool.length) {
		const fresh = fillFromUrandom(POOL_BYTES);
		if (fresh === undefined) return cryptoModule().randomBytes(size);
		pool = fresh;
		used = 0;
	}
	const bytes = Buffer.from(pool.subarray(used, used + size));
	// Handed-out bytes are wiped from the pool.
	pool.fill(0, used, used + size);
	used += size;
	return bytes;
}

/** `size` random bytes as lowercase hex (2 × size characters). */
export function randomHex(size: number): string {
	return randomBytes(size).toString("hex");
}

/** A random UUID, version 4 (RFC 9562). */
export function randomUuid(): string {
	const bytes = randomBytes(16);
	bytes[6] = 0x40 | ((bytes[6] ?? 0) & 0x0f);
	bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
	return formatUuid(bytes);
}

/** Sixteen bytes in the 8-4-4-4-12 hex form of a UUID. */
export function formatUuid(bytes: Buffer): string {
	const hex = bytes.toString("hex");
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
