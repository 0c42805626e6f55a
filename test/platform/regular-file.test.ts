import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileTooLargeError, NotARegularFileError } from "../../src/platform/file-kind.js";
import {
	copyRegularFileSync,
	openRegularFile,
	openRegularFileSync,
	readOptionalTextFile,
	readOptionalTextFileSync,
	readRegularFile,
	readRegularFileSync,
	writeRegularFile,
} from "../../src/platform/regular-file.js";

let root: string;

beforeEach(() => {
	root = mkdtempSync(join(tmpdir(), "atomic-regular-"));
});

afterEach(() => {
	rmSync(root, { recursive: true, force: true });
});

function fifo(name = "pipe"): string {
	const path = join(root, name);
	execFileSync("mkfifo", [path]);
	return path;
}

describe("opening only regular files", () => {
	it("refuses a FIFO in every mode, at once", async () => {
		const path = fifo();
		for (const mode of ["read", "readWrite", "write", "append", "readAppend"] as const) {
			await expect(openRegularFile(path, mode)).rejects.toThrow(NotARegularFileError);
			expect(() => openRegularFileSync(path, mode)).toThrow(`${path} is a FIFO (named pipe), not a regular file`);
		}
	});

	it("refuses devices and directories, naming them with the display path", async () => {
		await expect(openRegularFile("/dev/zero", "read", "zero")).rejects.toThrow(
			"zero is a character device, not a regular file",
		);
		expect(() => openRegularFileSync(root, "read")).toThrow(`${root} is a directory, not a regular file`);
	});

	it("passes the open's own errors through", async () => {
		await expect(openRegularFile(join(root, "missing"), "read")).rejects.toThrow("ENOENT");
		await expect(openRegularFile(join(root, "new"), "create")).resolves.toBeDefined();
		expect(() => openRegularFileSync(join(root, "new"), "create")).toThrow("EEXIST");
	});
});

describe("bounded reads", () => {
	it("reads a whole file within the limit", async () => {
		writeFileSync(join(root, "f"), "hello");
		expect((await readRegularFile(join(root, "f"), { maxBytes: 5 })).toString()).toBe("hello");
		expect(readRegularFileSync(join(root, "f"), { maxBytes: 5 }).toString()).toBe("hello");
		expect(readRegularFileSync(join(root, "f"), { maxBytes: 5 })).toHaveLength(5);
	});

	it("refuses a larger file by its size, before reading it", async () => {
		const path = join(root, "sparse");
		writeFileSync(path, "");
		truncateSync(path, 10 * 1024 * 1024 * 1024);
		await expect(readRegularFile(path, { maxBytes: 1024 })).rejects.toThrow(FileTooLargeError);
		expect(() => readRegularFileSync(path, { maxBytes: 1024, displayPath: "sparse" })).toThrow(
			"sparse is too large (10.0 GB; at most 1.0 KB is read)",
		);
	});

	it("treats a missing file as absent and refuses special ones", async () => {
		expect(readOptionalTextFileSync(join(root, "missing"), { maxBytes: 10 })).toBeUndefined();
		expect(await readOptionalTextFile(join(root, "missing", "below"), { maxBytes: 10 })).toBeUndefined();
		const path = fifo();
		await expect(readOptionalTextFile(path, { maxBytes: 10 })).rejects.toThrow(NotARegularFileError);
	});
});

describe("writing and copying", () => {
	it("replaces a regular file's content and refuses a FIFO before touching it", async () => {
		const path = join(root, "f");
		writeFileSync(path, "a long old content");
		await writeRegularFile(path, "new");
		expect(readFileSync(path, "utf8")).toBe("new");
		await expect(writeRegularFile(fifo(), "x")).rejects.toThrow(NotARegularFileError);
	});

	it("copies into a new file only, and removes a copy that failed", () => {
		const source = join(root, "source");
		writeFileSync(source, "x".repeat(3000));
		copyRegularFileSync(source, join(root, "copy"), { maxBytes: 4096 });
		expect(readFileSync(join(root, "copy"), "utf8")).toBe("x".repeat(3000));
		expect(() => copyRegularFileSync(source, join(root, "copy"), { maxBytes: 4096 })).toThrow("EEXIST");
		expect(() => copyRegularFileSync(source, join(root, "small"), { maxBytes: 100 })).toThrow(FileTooLargeError);
		expect(() => copyRegularFileSync(fifo(), join(root, "from-fifo"), { maxBytes: 100 })).toThrow(NotARegularFileError);
	});
});
