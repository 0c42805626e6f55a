import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DirectoryCreationError, ensureDirectory, ensureDirectorySync } from "../../src/platform/ensure-directory.js";

let root: string;
/** A pid above the kernel's maximum (2^22): no process can have it, so /proc/<pid> never exists. */
const MISSING_PID = 2 ** 22 + 7;

beforeEach(() => {
	root = mkdtempSync(join(tmpdir(), "atomic-mkdir-"));
});

afterEach(() => {
	rmSync(root, { recursive: true, force: true });
});

describe.each([
	["ensureDirectory", (path: string, mode?: number) => ensureDirectory(path, { mode })],
	["ensureDirectorySync", async (path: string, mode?: number) => ensureDirectorySync(path, { mode })],
])("%s", (_name, make) => {
	it("creates every missing level, and accepts an existing directory", async () => {
		const path = join(root, "a", "b", "c");
		await make(path);
		expect(statSync(path).isDirectory()).toBe(true);
		await make(path);
		await make(root);
	});

	it("applies the mode to the levels it creates", async () => {
		const path = join(root, "private", "inner");
		await make(path, 0o700);
		expect(statSync(join(root, "private")).mode & 0o777).toBe(0o700);
		expect(statSync(path).mode & 0o777).toBe(0o700);
	});

	it("answers with an error for a folder under /proc/<missing pid>/ instead of looping", async () => {
		const path = `/proc/${MISSING_PID}/a/b`;
		await expect(make(path)).rejects.toThrow(DirectoryCreationError);
		await expect(make(path)).rejects.toThrow(`Cannot create directory /proc/${MISSING_PID}:`);
	});

	it("names the file that stands where a folder should be", async () => {
		writeFileSync(join(root, "file"), "x");
		await expect(make(join(root, "file", "below"))).rejects.toThrow(
			`Cannot create directory ${join(root, "file", "below")}: ${join(root, "file")} is a regular file, not a directory`,
		);
		await expect(make(join(root, "file"))).rejects.toThrow(
			`Cannot create directory ${join(root, "file")}: it is a regular file, not a directory`,
		);
	});

	// Root may write anywhere: the refusal is only observable as another user.
	it.skipIf(process.getuid?.() === 0)("reports a level it may not create", async () => {
		mkdirSync(join(root, "locked"), { mode: 0o500 });
		await expect(make(join(root, "locked", "x"))).rejects.toThrow(
			`Cannot create directory ${join(root, "locked", "x")}: EACCES`,
		);
	});
});
