/**
 * An editor that offers only one of fs/read_text_file and fs/write_text_file: the other half goes
 * to the disk with the disk tools' guards. FIFOs, oversized files and folders under /proc/<gone
 * pid>/ are refused at once with a clear error, and the agent keeps serving.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { type ScriptedReply, textReply } from "../support/llm-server.js";
import { useAcpHarness } from "./helpers.js";

const harness = useAcpHarness();
/** Above the kernel's pid limit (2^22): /proc/<pid> never exists. */
const MISSING_PID = 2 ** 22 + 4242;

function mkfifo(path: string): string {
	execFileSync("mkfifo", [path]);
	return path;
}

function calls(...list: [id: string, name: string, args: Record<string, unknown>][]): ScriptedReply {
	return { blocks: list.map(([id, name, args]) => ({ type: "toolCall", id, name, arguments: args })) };
}

function contentText(content: ToolCallContent[] | null | undefined): string {
	return (content ?? [])
		.flatMap((item) => (item.type === "content" && item.content.type === "text" ? [item.content.text] : []))
		.join("");
}

/** The final status and text of each tool call of the session, by id. */
function outcomes(updates: SessionUpdate[]): Record<string, { status: string; text: string }> {
	const result: Record<string, { status: string; text: string }> = {};
	for (const update of updates) {
		if (update.sessionUpdate !== "tool_call_update" || (update.status !== "completed" && update.status !== "failed"))
			continue;
		result[update.toolCallId] = { status: update.status, text: contentText(update.content) };
	}
	return result;
}

describe("a client that offers only one of fs read and write", () => {
	it("reads from its buffers; writes go to the disk, and a FIFO or /proc/<gone pid>/ is refused", async () => {
		const files = new Map<string, string>();
		const { client, dirs } = await harness.start({ files, offerFs: { readTextFile: true, writeTextFile: false } });
		const pipes = ["w1", "w2", "w3", "w4", "e1"].map((name) => mkfifo(join(dirs.work, name)));
		const edited = join(dirs.work, "edited.txt");
		files.set(edited, "from the buffer\n");
		// The buffer of e1 is text, but the disk holds a FIFO there: the edit's write is refused.
		files.set(join(dirs.work, "e1"), "pipe buffer\n");
		const target = `/proc/${MISSING_PID}/deep/file.txt`;
		harness.server.enqueue(
			calls(
				["w1", "write", { path: "w1", content: "x" }],
				["w2", "write", { path: "w2", content: "x" }],
				["w3", "write", { path: "w3", content: "x" }],
				["w4", "write", { path: "w4", content: "x" }],
				["e1", "edit", { path: "e1", oldText: "pipe", newText: "tube" }],
				["proc", "write", { path: target, content: "x" }],
				["ok", "edit", { path: "edited.txt", oldText: "buffer", newText: "disk" }],
			),
			textReply("done"),
		);
		const sessionId = await client.newSession(dirs.work);
		const response = await client.agent.request("session/prompt", {
			sessionId,
			prompt: [{ type: "text", text: "go" }],
		});
		expect(response.stopReason).toBe("end_turn");
		const results = outcomes(client.updates(sessionId));
		for (const [id, path] of [
			["w1", pipes[0]],
			["w2", pipes[1]],
			["w3", pipes[2]],
			["w4", pipes[3]],
			["e1", pipes[4]],
		]) {
			expect(results[id as string]).toEqual({
				status: "failed",
				text: `Cannot write ${path}: it is a FIFO (named pipe), not a regular file`,
			});
		}
		expect(results.proc?.status).toBe("failed");
		expect(results.proc?.text).toMatch(
			new RegExp(`^Cannot write ${target}: Cannot create directory /proc/${MISSING_PID}: `),
		);
		// The edit read the buffer and wrote the disk.
		expect(results.ok?.status).toBe("completed");
		expect(readFileSync(edited, "utf8")).toBe("from the disk\n");
		expect(client.fsRequests.every((request) => request.method === "read")).toBe(true);

		// Nothing is left waiting: the agent answers and takes the next prompt.
		expect((await client.agent.request("session/list", { cwd: dirs.work })).sessions).toHaveLength(1);
		harness.server.enqueue(textReply("still here"));
		const next = await client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "more" }] });
		expect(next.stopReason).toBe("end_turn");
		expect(await client.close()).toEqual({ code: 0, signal: null });
	});

	it("writes to its buffers; reads come from the disk, refusing a FIFO and a file over 16 MB", async () => {
		const files = new Map<string, string>();
		const { client, dirs } = await harness.start({ files, offerFs: { readTextFile: false, writeTextFile: true } });
		const pipes = ["r1", "r2", "r3", "r4"].map((name) => mkfifo(join(dirs.work, name)));
		const big = join(dirs.work, "big.log");
		writeFileSync(big, Buffer.alloc(17 * 1024 * 1024, "a"));
		writeFileSync(join(dirs.work, "small.txt"), "small on disk\n");
		harness.server.enqueue(
			calls(
				["r1", "read", { path: "r1" }],
				["r2", "read", { path: "r2" }],
				["r3", "read", { path: "r3" }],
				["r4", "read", { path: "r4" }],
				["big", "read", { path: "big.log" }],
				["small", "read", { path: "small.txt" }],
				["written", "write", { path: "out/new.txt", content: "to the editor\n" }],
			),
			textReply("done"),
		);
		const sessionId = await client.newSession(dirs.work);
		const response = await client.agent.request("session/prompt", {
			sessionId,
			prompt: [{ type: "text", text: "go" }],
		});
		expect(response.stopReason).toBe("end_turn");
		const results = outcomes(client.updates(sessionId));
		for (const [index, id] of ["r1", "r2", "r3", "r4"].entries()) {
			expect(results[id]).toEqual({
				status: "failed",
				text: `Cannot read ${pipes[index]}: it is a FIFO (named pipe), not a regular file`,
			});
		}
		expect(results.big).toEqual({
			status: "failed",
			text: `Cannot read ${big}: it is too large (17.0 MB; at most 16.0 MB is read)`,
		});
		expect(results.small).toEqual({ status: "completed", text: "small on disk" });
		expect(files.get(join(dirs.work, "out/new.txt"))).toBe("to the editor\n");
		expect(client.fsRequests).toEqual([{ method: "write", path: join(dirs.work, "out/new.txt") }]);
		expect(await client.close()).toEqual({ code: 0, signal: null });
	});
});
