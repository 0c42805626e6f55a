import { afterEach, describe, expect, it, vi } from "vitest";
import { randomBytes, randomHex, randomUuid } from "../../src/platform/random.js";
import { createEntryId, uuidv7 } from "../../src/session/ids.js";

afterEach(() => {
	vi.doUnmock("node:fs");
	vi.resetModules();
	vi.restoreAllMocks();
});

describe("random bytes", () => {
	it("hands out the size asked for, below, at and above the pool's size", () => {
		for (const size of [1, 4, 16, 511, 512, 513, 4096]) expect(randomBytes(size)).toHaveLength(size);
	});

	it("never hands out the same bytes twice", () => {
		const drawn = new Set(Array.from({ length: 2000 }, () => randomHex(8)));
		expect(drawn.size).toBe(2000);
	});

	it("draws every byte value (not a constant or a short cycle)", () => {
		const seen = new Set(randomBytes(64 * 1024));
		expect(seen.size).toBe(256);
	});

	it("formats version 4 and version 7 UUIDs", () => {
		expect(randomUuid()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
		const id = uuidv7(0x0123456789ab);
		expect(id).toMatch(/^01234567-89ab-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
		expect(uuidv7()).not.toBe(uuidv7());
	});

	it("gives entry ids of 8 hex characters, drawn again while taken", () => {
		const taken = new Set<string>();
		for (let count = 0; count < 500; count++) {
			const id = createEntryId((candidate) => taken.has(candidate));
			expect(id).toMatch(/^[0-9a-f]{8}$/);
			expect(taken.has(id)).toBe(false);
			taken.add(id);
		}
		// Every 8-character id taken: a whole UUID after 100 draws.
		expect(createEntryId(() => true)).toMatch(/^[0-9a-f-]{36}$/);
	});

	it("uses node:crypto, with one warning, when /dev/urandom cannot be read", async () => {
		vi.doMock("node:fs", async (importOriginal) => {
			const fs = await importOriginal<typeof import("node:fs")>();
			return {
				...fs,
				openSync: () => {
					throw Object.assign(new Error("EACCES: permission denied, open '/dev/urandom'"), { code: "EACCES" });
				},
			};
		});
		vi.resetModules();
		const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
		const fresh = await import("../../src/platform/random.js");
		const drawn = new Set(Array.from({ length: 50 }, () => fresh.randomHex(16)));
		expect(drawn.size).toBe(50);
		expect(fresh.randomBytes(2048)).toHaveLength(2048);
		const warnings = warn.mock.calls.filter((call) => String(call[1]) === "AtomicRandomWarning");
		expect(warnings.length).toBe(process.platform === "win32" ? 0 : 1);
		expect(String(warnings[0]?.[0] ?? "")).toMatch(/\/dev\/urandom.*EACCES/);
	});
});
