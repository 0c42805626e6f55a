/**
 * Files a model or a client can point Atomic at that would wedge a naive process: FIFOs nobody
 * opens, devices that never end, folders under /proc/<gone pid>/, oversized sessions. Each is
 * refused at once with a clear error; the process stays responsive and ends on stdin EOF.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textReply } from "../support/llm-server.js";
import { expectExitOnEof, expectResponsive } from "../support/responsive.js";
import type { RpcAgent, RpcRecord } from "../support/rpc-process.js";
import { startAgent, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();
/** Above the kernel's pid limit (2^22): /proc/<pid> never exists. */
const MISSING_PID = 2 ** 22 + 4242;

function mkfifo(path: string): string {
	execFileSync("mkfifo", [path]);
	return path;
}

function toolEnds(agent: RpcAgent, start: number): RpcRecord[] {
	return agent.since(start, "tool_execution_end");
}

function resultText(record: RpcRecord): string {
	const result = record.result as { content: { type: string; text?: string }[] };
	return result.content.map((block) => block.text ?? "").join("");
}

/** Peak resident memory of a process so far (VmHWM), in bytes. */
function peakRss(pid: number): number {
	const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
	if (!match) throw new Error(`no VmHWM for ${pid}`);
	return Number(match[1]) * 1024;
}

describe("files that are not regular files", () => {
	it("read, write and edit refuse FIFOs nobody opens; parallel reads hold up neither export_html nor exit", async () => {
		const { agent, dirs } = await startAgent(harness.server, { sessions: true });
		for (const name of ["r1", "r2", "r3", "r4", "w1", "e1"]) mkfifo(join(dirs.work, name));
		harness.server.enqueue(
			{
				blocks: [
					...["r1", "r2", "r3", "r4"].map((path) => ({ type: "toolCall" as const, name: "read", arguments: { path } })),
					{ type: "toolCall", name: "write", arguments: { path: "w1", content: "x" } },
					{ type: "toolCall", name: "edit", arguments: { path: "e1", oldText: "a", newText: "b" } },
				],
			},
			textReply("all refused"),
		);
		const { start } = await agent.prompt("touch the pipes");
		const ends = toolEnds(agent, start);
		expect(ends).toHaveLength(6);
		for (const end of ends) expect(end.isError).toBe(true);
		expect(ends.map(resultText).sort()).toEqual([
			"Cannot edit e1: it is a FIFO (named pipe), not a regular file",
			"Cannot read r1: it is a FIFO (named pipe), not a regular file",
			"Cannot read r2: it is a FIFO (named pipe), not a regular file",
			"Cannot read r3: it is a FIFO (named pipe), not a regular file",
			"Cannot read r4: it is a FIFO (named pipe), not a regular file",
			"Cannot write w1: it is a FIFO (named pipe), not a regular file",
		]);
		// With the thread pool's four threads stuck in open(), this write would never happen.
		const exported = (await agent.ok({ type: "export_html", outputPath: join(dirs.work, "out.html") })) as {
			path: string;
		};
		expect(readFileSync(exported.path, "utf8")).toContain("<html");
		await expectResponsive(agent);
		await expectExitOnEof(agent);
	});

	it("export_html refuses a FIFO or a device as its output and stays responsive", async () => {
		const { agent, dirs } = await startAgent(harness.server, { sessions: true });
		harness.server.enqueue(textReply("something to export"));
		await agent.prompt("hello");
		const pipe = mkfifo(join(dirs.work, "out.html"));
		for (const [outputPath, kind] of [
			[pipe, "a FIFO (named pipe)"],
			["/dev/zero", "a character device"],
		] as const) {
			const exported = await agent.request({ type: "export_html", outputPath });
			expect(exported.success).toBe(false);
			expect(String(exported.error)).toContain(`${outputPath} is ${kind}, not a regular file`);
			await expectResponsive(agent);
		}
		await expectResponsive(agent);
		await expectExitOnEof(agent);
	});

	it("write and export_html under /proc/<missing pid>/ answer with an error instead of spinning", async () => {
		const { agent } = await startAgent(harness.server, { sessions: true });
		const target = `/proc/${MISSING_PID}/deep/file.txt`;
		harness.server.enqueue({
			blocks: [{ type: "toolCall", name: "write", arguments: { path: target, content: "x" } }],
		});
		harness.server.enqueue(textReply("could not write"));
		const { start } = await agent.prompt("write into proc");
		const [end] = toolEnds(agent, start);
		expect(end?.isError).toBe(true);
		expect(resultText(end as RpcRecord)).toMatch(
			new RegExp(`^Cannot write ${target}: Cannot create directory /proc/${MISSING_PID}: `),
		);
		await expectResponsive(agent);
		const exported = await agent.request({ type: "export_html", outputPath: `/proc/${MISSING_PID}/x/out.html` });
		expect(exported.success).toBe(false);
		expect(String(exported.error)).toMatch(new RegExp(`^Cannot create directory /proc/${MISSING_PID}: `));
		await expectResponsive(agent);
		await expectExitOnEof(agent);
	});
});

describe("sessions that are not regular files or too large", () => {
	it("switch_session and import_session refuse a FIFO and /dev/zero at once, and change nothing", async () => {
		const { agent, dirs } = await startAgent(harness.server, { sessions: true });
		const before = (await agent.ok({ type: "get_state" })) as { sessionFile: string };
		const pipe = mkfifo(join(dirs.work, "pipe.jsonl"));
		const refusals = [
			[{ type: "switch_session", sessionPath: pipe }, `${pipe} is a FIFO (named pipe), not a regular file`],
			[{ type: "switch_session", sessionPath: "/dev/zero" }, "/dev/zero is a character device, not a regular file"],
			[
				{ type: "import_session", inputPath: pipe },
				`Cannot import ${pipe}: it is a FIFO (named pipe), not a regular file`,
			],
			[
				{ type: "import_session", inputPath: "/dev/zero" },
				"Cannot import /dev/zero: it is a character device, not a regular file",
			],
		] as const;
		for (const [command, error] of refusals) {
			expect(await agent.request(command)).toMatchObject({ success: false, error });
			await expectResponsive(agent);
		}
		expect(((await agent.ok({ type: "get_state" })) as { sessionFile: string }).sessionFile).toBe(before.sessionFile);
		await expectResponsive(agent);
		await expectExitOnEof(agent);
	});

	it("refuse a session over the size limit, and a line over the line limit, having read no more than it", async () => {
		const { agent, dirs } = await startAgent(harness.server, { sessions: true });
		const header = `${JSON.stringify({ type: "session", version: 3, id: "big", timestamp: "2026-01-01T00:00:00.000Z", cwd: dirs.work })}\n`;
		// Sparse files: they take no disk, and read as NUL bytes without an LF.
		const huge = join(dirs.work, "huge.jsonl");
		writeFileSync(huge, header);
		truncateSync(huge, 600 * 1024 * 1024);
		const longLine = join(dirs.work, "long-line.jsonl");
		writeFileSync(longLine, header);
		truncateSync(longLine, 200 * 1024 * 1024);
		expect(await agent.request({ type: "switch_session", sessionPath: huge })).toMatchObject({
			success: false,
			error: `Session file ${huge} is too large to open (600.0 MB; at most 512.0 MB)`,
		});
		expect(await agent.request({ type: "import_session", inputPath: huge })).toMatchObject({
			success: false,
			error: `Session file ${huge} is too large to open (600.0 MB; at most 512.0 MB)`,
		});
		const pid = agent.child.pid ?? 0;
		const peakBefore = peakRss(pid);
		expect(await agent.request({ type: "switch_session", sessionPath: longLine }, 30_000)).toMatchObject({
			success: false,
			error: `Session file ${longLine} has a line longer than 128.0 MB at byte ${header.length}`,
		});
		// The line was read up to its limit and no further (the file is 200 MB).
		expect(peakRss(pid) - peakBefore).toBeLessThan(180 * 1024 * 1024);
		await expectResponsive(agent);
		await expectExitOnEof(agent);
	});

	it("--session naming a FIFO ends the process with a clear error instead of hanging", async () => {
		const { agent, dirs } = await startAgent(harness.server, {
			sessions: true,
			args: ["--session", "./pipe.jsonl"],
			awaitReady: false,
			prepare: (prepared) => mkfifo(join(prepared.work, "pipe.jsonl")),
		});
		expect(await agent.exited).toEqual({ code: 1, signal: null });
		expect(agent.stderr).toContain(
			`Error: ${join(dirs.work, "pipe.jsonl")} is a FIFO (named pipe), not a regular file`,
		);
	});
});

describe("read with offset and limit", () => {
	it("holds only the lines it returns, whatever the size of the file", { timeout: 60_000 }, async () => {
		const { agent, dirs } = await startAgent(harness.server);
		// About 65 MB of short numbered lines: reading it whole would take several times 40 MB.
		const lines = 4_000_000;
		const chunk: string[] = [];
		const path = join(dirs.work, "big.log");
		writeFileSync(path, "");
		for (let line = 1; line <= lines; line++) {
			chunk.push(`log line ${line}`);
			if (chunk.length === 500_000) {
				writeFileSync(path, `${chunk.join("\n")}\n`, { flag: "a" });
				chunk.length = 0;
			}
		}
		// A first run loads the provider SDK, so that the peak measured next is the read's alone.
		harness.server.enqueue(textReply("warm"));
		await agent.prompt("warm up");
		harness.server.enqueue(
			{ blocks: [{ type: "toolCall", name: "read", arguments: { path: "big.log", offset: 2_500_000, limit: 3 } }] },
			textReply("read"),
		);
		const pid = agent.child.pid ?? 0;
		const peakBefore = peakRss(pid);
		const { start } = await agent.prompt("read three lines", {}, 60_000);
		const [end] = toolEnds(agent, start);
		expect(resultText(end as RpcRecord)).toBe(
			"log line 2500000\nlog line 2500001\nlog line 2500002\n\n[1499998 more lines in file. Use offset=2500003 to continue.]",
		);
		// Reading the whole file to return three lines took several times its size.
		expect(peakRss(pid) - peakBefore).toBeLessThan(40 * 1024 * 1024);
		await expectResponsive(agent);
		await expectExitOnEof(agent);
	});
});
