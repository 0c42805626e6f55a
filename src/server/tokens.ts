import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ensureDirectorySync } from "../platform/ensure-directory.js";
import { MAX_CONFIG_FILE_BYTES, readOptionalTextFileSync } from "../platform/regular-file.js";

/** What a token lets its holder do on `atomic serve` (docs/server.md). */
export const TOKEN_ROLES = ["controller", "observer"] as const;
export type TokenRole = (typeof TOKEN_ROLES)[number];

/** One stored token: only the hash of the secret is kept. */
export interface StoredToken {
	name: string;
	role: TokenRole;
	/** `sha256:<hex>` of the token. */
	hash: string;
	createdAt: string;
	/**
	 * `"login-url"` on a token made by opening the login URL of `atomic serve` (`web-…`, revoked at
	 * logout). Other text is kept as it is (a file written by a later version).
	 */
	madeBy?: string;
}

/** What made a token besides `atomic token create`: the login URL of `atomic serve`. */
export type TokenMaker = "login-url";

/** A name: letters, digits, `.`, `_` and `-`, 1 to 64 of them. */
const NAME = /^[A-Za-z0-9._-]{1,64}$/;
/** Tokens start with this, so that a leaked one is recognisable (secret scanners, logs). */
const PREFIX = "atk_";

export function isTokenRole(value: unknown): value is TokenRole {
	return typeof value === "string" && (TOKEN_ROLES as readonly string[]).includes(value);
}

function hashOf(token: string): string {
	return `sha256:${createHash("sha256").update(token, "utf8").digest("hex")}`;
}

function isStoredToken(value: unknown): value is StoredToken {
	if (typeof value !== "object" || value === null) return false;
	if (!("name" in value && "role" in value && "hash" in value && "createdAt" in value)) return false;
	const { name, role, hash, createdAt } = value;
	// Any text is accepted, so that a file written by a later version (another maker) still loads.
	const madeBy = "madeBy" in value ? value.madeBy : undefined;
	return (
		(madeBy === undefined || typeof madeBy === "string") &&
		typeof name === "string" &&
		NAME.test(name) &&
		isTokenRole(role) &&
		typeof hash === "string" &&
		/^sha256:[0-9a-f]{64}$/.test(hash) &&
		typeof createdAt === "string"
	);
}

/**
 * The tokens of `atomic serve`, in `<agentDir>/tokens.json` (mode 0600). A token is shown once,
 * when made; the file holds its SHA-256 only (a token is 32 random bytes, so no slow hash is
 * needed). A file that cannot be read refuses every token: credentials fail closed.
 */
export class TokenStore {
	readonly path: string;
	/** The file's identity at the last changedSinceLastLook(). */
	private lastStamp: string | undefined;

	constructor(agentDir: string) {
		this.path = join(agentDir, "tokens.json");
	}

	/** The stored tokens; throws when the file exists but is not a token file. */
	list(): StoredToken[] {
		const text = readOptionalTextFileSync(this.path, { maxBytes: MAX_CONFIG_FILE_BYTES });
		if (text === undefined) return [];
		let data: unknown;
		try {
			data = JSON.parse(text);
		} catch (error) {
			throw new Error(`${this.path} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`, {
				cause: error,
			});
		}
		const tokens = typeof data === "object" && data !== null && "tokens" in data ? data.tokens : undefined;
		if (!Array.isArray(tokens) || !tokens.every(isStoredToken)) {
			throw new Error(`${this.path} is not a token file ({"tokens": [{name, role, hash, createdAt}]})`);
		}
		return tokens;
	}

	/**
	 * Whether the file changed (or appeared, or went) since the last call: a stat, so that a
	 * server can look often for revoked tokens without reading the file each time.
	 */
	changedSinceLastLook(): boolean {
		const stats = statSync(this.path, { throwIfNoEntry: false });
		const stamp = stats ? `${stats.ino}:${stats.size}:${stats.mtimeMs}` : "none";
		const changed = stamp !== this.lastStamp;
		this.lastStamp = stamp;
		return changed;
	}

	/** Makes a token; returns the secret, which is not stored. Throws for a bad or taken name. */
	create(name: string, role: TokenRole, now = new Date(), madeBy?: TokenMaker): string {
		if (!NAME.test(name)) throw new Error(`A token name is 1 to 64 letters, digits, ".", "_" or "-" (got "${name}")`);
		const tokens = this.list();
		if (tokens.some((token) => token.name === name)) throw new Error(`A token named "${name}" exists; revoke it first`);
		const secret = `${PREFIX}${randomBytes(32).toString("base64url")}`;
		const token: StoredToken = { name, role, hash: hashOf(secret), createdAt: now.toISOString() };
		if (madeBy !== undefined) token.madeBy = madeBy;
		this.write([...tokens, token]);
		return secret;
	}

	/** Removes a token; throws when there is none of that name. */
	revoke(name: string): void {
		const tokens = this.list();
		const kept = tokens.filter((token) => token.name !== name);
		if (kept.length === tokens.length) throw new Error(`No token named "${name}"`);
		this.write(kept);
	}

	/**
	 * The token `presented` is, or undefined. Every stored hash is compared, each in constant time,
	 * so the answer's timing says nothing about which one (or how much of one) matched.
	 */
	verify(presented: string): StoredToken | undefined {
		const wanted = Buffer.from(hashOf(presented));
		let found: StoredToken | undefined;
		for (const token of this.list()) {
			const stored = Buffer.from(token.hash);
			if (stored.length === wanted.length && timingSafeEqual(stored, wanted)) found = token;
		}
		return found;
	}

	private write(tokens: StoredToken[]): void {
		ensureDirectorySync(dirname(this.path));
		const temporary = `${this.path}.${process.pid}.tmp`;
		writeFileSync(temporary, `${JSON.stringify({ tokens }, null, 2)}\n`, { mode: 0o600 });
		chmodSync(temporary, 0o600);
		renameSync(temporary, this.path);
	}
}
