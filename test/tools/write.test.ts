import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createWriteTool } from "../../src/tools/write.js";

let dir: string;
const signal = new AbortController().signal;

beforeEach(async () => {
	dir = await mkdtemp(join(tmpdir(), "atomic-write-"));
});

afterEach(async () => {
	await rm(dir, { recursive: true, force: true });
});

function write(args: { path: string; content: string }, abortSignal = signal, cwd = dir) {
	return createWriteTool({ cwd }).execute("call-1", args, abortSignal, () => undefined);
}

describe("write", () => {
	it("gives the change as a diff in its details: a new file all added, an existing one what changed", async () => {
		const created = await write({ path: "notes.txt", content: "one\ntwo\n" });
		const createdDiff = (created.details as { diff: string }).diff;
		expect(createdDiff).toContain("+one");
		expect(createdDiff).toContain("+two");
		const changed = await write({ path: "notes.txt", content: "one\nthree\n" });
		const changedDiff = (changed.details as { diff: string }).diff;
		expect(changedDiff).toContain("-two");
		expect(changedDiff).toContain("+three");
		expect(changedDiff).not.toContain("+one");
		// A file that is not text gets no diff, and is written all the same.
		await writeFile(join(dir, "blob.bin"), Buffer.from([0, 1, 2]));
		const binary = await write({ path: "blob.bin", content: "text now" });
		expect(binary.details).toBeUndefined();
		expect(await readFile(join(dir, "blob.bin"), "utf8")).toBe("text now");
	});

	it("creates missing parent directories and reports the bytes written", async () => {
		const result = await write({ path: "a/b/c.txt", content: "hello" });
		expect(result.content).toEqual([{ type: "text", text: "Successfully wrote 5 bytes to a/b/c.txt" }]);
		expect(await readFile(join(dir, "a", "b", "c.txt"), "utf8")).toBe("hello");
	});

	it("counts UTF-8 bytes, not characters", async () => {
		const result = await write({ path: "accents.txt", content: "héllo ✓" });
		expect(result.content).toEqual([{ type: "text", text: "Successfully wrote 10 bytes to accents.txt" }]);
		expect(await readFile(join(dir, "accents.txt"), "utf8")).toBe("héllo ✓");
	});

	it("overwrites an existing file", async () => {
		await writeFile(join(dir, "old.txt"), "a much longer previous content\n");
		await write({ path: "old.txt", content: "new\n" });
		expect(await readFile(join(dir, "old.txt"), "utf8")).toBe("new\n");
	});

	it("writes an empty file", async () => {
		const result = await write({ path: "empty.txt", content: "" });
		expect(result.content).toEqual([{ type: "text", text: "Successfully wrote 0 bytes to empty.txt" }]);
		expect(await readFile(join(dir, "empty.txt"), "utf8")).toBe("");
	});

	it("accepts absolute paths and ~", async () => {
		await write({ path: join(dir, "abs.txt"), content: "absolute" }, signal, tmpdir());
		expect(await readFile(join(dir, "abs.txt"), "utf8")).toBe("absolute");

		const previousHome = process.env.HOME;
		process.env.HOME = dir;
		try {
			const result = await write({ path: "~/home/file.txt", content: "home" }, signal, tmpdir());
			expect(result.content).toEqual([{ type: "text", text: "Successfully wrote 4 bytes to ~/home/file.txt" }]);
			expect(await readFile(join(dir, "home", "file.txt"), "utf8")).toBe("home");
		} finally {
			if (previousHome === undefined) delete process.env.HOME;
			else process.env.HOME = previousHome;
		}
	});

	it("refuses to write over a directory", async () => {
		await mkdir(join(dir, "folder"));
		await expect(write({ path: "folder", content: "x" })).rejects.toThrow("folder is a directory");
	});

	it("writes nothing once the signal has fired", async () => {
		const controller = new AbortController();
		controller.abort();
		await expect(write({ path: "never.txt", content: "x" }, controller.signal)).rejects.toThrow("Operation aborted");
		await expect(readFile(join(dir, "never.txt"), "utf8")).rejects.toThrow("ENOENT");
	});
});
