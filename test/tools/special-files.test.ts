import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEditTool } from "../../src/tools/edit.js";
import { createReadTool } from "../../src/tools/read.js";
import { createWriteTool } from "../../src/tools/write.js";

let dir: string;
let server: Server | undefined;
const signal = new AbortController().signal;

beforeEach(async () => {
	dir = await mkdtemp(join(tmpdir(), "atomic-special-"));
});

afterEach(async () => {
	await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
	server = undefined;
	await rm(dir, { recursive: true, force: true });
});

function fifo(name = "pipe"): string {
	const path = join(dir, name);
	execFileSync("mkfifo", [path]);
	return path;
}

async function socket(name = "sock"): Promise<string> {
	const path = join(dir, name);
	server = createServer();
	await new Promise<void>((resolve) => server?.listen(path, resolve));
	return path;
}

const read = (path: string) => createReadTool({ cwd: dir }).execute("c", { path }, signal, () => undefined);
const write = (path: string, content = "x") =>
	createWriteTool({ cwd: dir }).execute("c", { path, content }, signal, () => undefined);
const edit = (path: string) =>
	createEditTool({ cwd: dir }).execute("c", { path, oldText: "a", newText: "b" }, signal, () => undefined);

describe("tools refuse what is not a regular file, at once", () => {
	it("read, write and edit refuse a FIFO that nobody opens", async () => {
		const path = fifo();
		await expect(read("pipe")).rejects.toThrow("Cannot read pipe: it is a FIFO (named pipe), not a regular file");
		await expect(write("pipe")).rejects.toThrow("Cannot write pipe: it is a FIFO (named pipe), not a regular file");
		await expect(edit("pipe")).rejects.toThrow("Cannot edit pipe: it is a FIFO (named pipe), not a regular file");
		// Still a FIFO: nothing replaced it.
		expect(execFileSync("stat", ["-c", "%F", path], { encoding: "utf8" }).trim()).toBe("fifo");
	});

	it("a symlink to a FIFO is refused like the FIFO", async () => {
		fifo();
		execFileSync("ln", ["-s", "pipe", join(dir, "link")]);
		await expect(read("link")).rejects.toThrow("Cannot read link: it is a FIFO (named pipe), not a regular file");
	});

	it("read, write and edit refuse a socket", async () => {
		await socket();
		await expect(read("sock")).rejects.toThrow("Cannot read sock: it is a socket, not a regular file");
		await expect(write("sock")).rejects.toThrow("Cannot write sock: it is a socket, not a regular file");
		await expect(edit("sock")).rejects.toThrow("Cannot edit sock: it is a socket, not a regular file");
	});

	it("read, write and edit refuse character devices such as /dev/zero and /dev/null", async () => {
		await expect(read("/dev/zero")).rejects.toThrow(
			"Cannot read /dev/zero: it is a character device, not a regular file",
		);
		await expect(write("/dev/null")).rejects.toThrow(
			"Cannot write /dev/null: it is a character device, not a regular file",
		);
		await expect(edit("/dev/zero")).rejects.toThrow(
			"Cannot edit /dev/zero: it is a character device, not a regular file",
		);
	});

	it("parallel reads of FIFOs leave the thread pool free for other file work", async () => {
		const names = ["p1", "p2", "p3", "p4", "p5", "p6"];
		for (const name of names) fifo(name);
		const refusals = Promise.allSettled(names.map((name) => read(name)));
		await writeFile(join(dir, "plain.txt"), "hello");
		// With the pool's four threads stuck in open(), this read would never finish.
		expect(await readFile(join(dir, "plain.txt"), "utf8")).toBe("hello");
		for (const outcome of await refusals) expect(outcome.status).toBe("rejected");
	});

	it("write answers with an error for a folder under /proc/<missing pid>/ instead of spinning", async () => {
		const missingPid = 2 ** 22 + 12345;
		await expect(write(`/proc/${missingPid}/sub/file.txt`)).rejects.toThrow(
			`Cannot write /proc/${missingPid}/sub/file.txt: Cannot create directory /proc/${missingPid}`,
		);
	});

	it("write refuses a path below a regular file, naming it", async () => {
		await writeFile(join(dir, "file"), "x");
		await expect(write("file/below/new.txt")).rejects.toThrow(
			`Cannot create directory ${join(dir, "file/below")}: ${join(dir, "file")} is a regular file, not a directory`,
		);
	});
});
