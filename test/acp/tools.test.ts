import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { textReply, toolReply } from "../support/llm-server.js";
import { useAcpHarness } from "./helpers.js";

const harness = useAcpHarness();

type ToolCallUpdate = Extract<SessionUpdate, { sessionUpdate: "tool_call" | "tool_call_update" }>;

function toolUpdates(updates: SessionUpdate[], toolCallId?: string): ToolCallUpdate[] {
	return updates.filter(
		(update): update is ToolCallUpdate =>
			(update.sessionUpdate === "tool_call" || update.sessionUpdate === "tool_call_update") &&
			(toolCallId === undefined || update.toolCallId === toolCallId),
	);
}

function lastWith<K extends keyof ToolCallUpdate>(updates: ToolCallUpdate[], key: K): ToolCallUpdate[K] | undefined {
	const found = [...updates].reverse().find((update) => update[key] !== undefined && update[key] !== null);
	return found?.[key];
}

function contentText(content: ToolCallContent[] | null | undefined): string {
	return (content ?? [])
		.flatMap((item) => (item.type === "content" && item.content.type === "text" ? [item.content.text] : []))
		.join("");
}

async function runTool(
	client: Awaited<ReturnType<typeof harness.start>>["client"],
	cwd: string,
	name: string,
	args: Record<string, unknown>,
) {
	harness.server.enqueue({ blocks: [{ type: "toolCall", id: "call-1", name, arguments: args }] }, textReply("done"));
	const sessionId = await client.newSession(cwd);
	const response = await client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
	expect(response.stopReason).toBe("end_turn");
	return { sessionId, updates: toolUpdates(client.updates(sessionId), "call-1") };
}

describe("ACP tool calls", () => {
	it("a bash call is an execute call titled with its command, streams its output and completes", async () => {
		const { client, dirs } = await harness.start();
		const command = "for i in 1 2 3; do echo line-$i; sleep 0.05; done";
		const { updates } = await runTool(client, dirs.work, "bash", { command });
		expect(updates[0]).toMatchObject({ sessionUpdate: "tool_call", toolCallId: "call-1", kind: "execute" });
		expect(lastWith(updates, "title")).toBe(`Run ${command}`);
		expect(lastWith(updates, "rawInput")).toEqual({ command });
		const streamed = updates.filter((update) => update.status === undefined && update.content);
		expect(streamed.length).toBeGreaterThan(0);
		expect(contentText(streamed[streamed.length - 1]?.content)).toContain("line-");
		const statuses = updates.flatMap((update) => (update.status ? [update.status] : []));
		expect(statuses).toEqual(["pending", "pending", "in_progress", "completed"]);
		expect(contentText(updates[updates.length - 1]?.content)).toContain("line-3");
	});

	it("an edit shows the whole file's diff, its location and line, and changes the file on disk", async () => {
		const { client, dirs } = await harness.start();
		const file = join(dirs.work, "app.ts");
		writeFileSync(file, "line one\nline two\nline three\n");
		const { updates } = await runTool(client, dirs.work, "edit", {
			path: "app.ts",
			oldText: "line two",
			newText: "line 2",
		});
		expect(updates[0]?.kind).toBe("edit");
		expect(lastWith(updates, "title")).toBe("Edit app.ts");
		const final = updates[updates.length - 1];
		expect(final?.status).toBe("completed");
		expect(final?.content).toEqual([
			{
				type: "diff",
				path: file,
				oldText: "line one\nline two\nline three\n",
				newText: "line one\nline 2\nline three\n",
			},
		]);
		expect(final?.locations).toEqual([{ path: file, line: 2 }]);
		expect(readFileSync(file, "utf8")).toBe("line one\nline 2\nline three\n");
	});

	it("a write of a new file shows a diff from nothing", async () => {
		const { client, dirs } = await harness.start();
		const { updates } = await runTool(client, dirs.work, "write", { path: "new/file.txt", content: "fresh\n" });
		const file = join(dirs.work, "new/file.txt");
		expect(updates[updates.length - 1]?.content).toEqual([
			{ type: "diff", path: file, oldText: null, newText: "fresh\n" },
		]);
		expect(readFileSync(file, "utf8")).toBe("fresh\n");
	});

	it("a failed call is marked failed with the error the model saw", async () => {
		const { client, dirs } = await harness.start();
		const { updates } = await runTool(client, dirs.work, "read", { path: "missing.txt" });
		const final = updates[updates.length - 1];
		expect(final?.status).toBe("failed");
		expect(contentText(final?.content)).toContain("File not found");
		expect(lastWith(updates, "kind")).toBe("read");
		expect(lastWith(updates, "locations")).toEqual([{ path: join(dirs.work, "missing.txt"), line: 1 }]);
	});

	it("reads, writes and edits go through the client's buffers when it offers fs", async () => {
		const files = new Map<string, string>();
		const { client, dirs } = await harness.start({ files });
		const file = join(dirs.work, "buffer.ts");
		writeFileSync(file, "on disk\n");
		files.set(file, "unsaved buffer\n");
		harness.server.enqueue(
			toolReply("read", { path: "buffer.ts" }),
			toolReply("edit", { path: "buffer.ts", oldText: "unsaved", newText: "edited" }),
			toolReply("write", { path: "other.ts", content: "written\n" }),
			textReply("done"),
		);
		const sessionId = await client.newSession(dirs.work);
		await client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
		// The model read the buffer, not the disk.
		const toolResult = JSON.stringify(harness.server.requests[1]?.body);
		expect(toolResult).toContain("unsaved buffer");
		expect(toolResult).not.toContain("on disk");
		expect(files.get(file)).toBe("edited buffer\n");
		expect(files.get(join(dirs.work, "other.ts"))).toBe("written\n");
		expect(readFileSync(file, "utf8")).toBe("on disk\n");
		expect(client.fsRequests.every((request) => request.path.startsWith("/"))).toBe(true);
		const diff = toolUpdates(client.updates(sessionId)).flatMap((update) =>
			(update.content ?? []).filter((item) => item.type === "diff"),
		);
		expect(diff[0]).toEqual({ type: "diff", path: file, oldText: "unsaved buffer\n", newText: "edited buffer\n" });
	});

	it("without fs the tools use the disk and the client is never asked", async () => {
		const { client, dirs } = await harness.start();
		writeFileSync(join(dirs.work, "disk.txt"), "from disk\n");
		harness.server.enqueue(toolReply("read", { path: "disk.txt" }), textReply("done"));
		const sessionId = await client.newSession(dirs.work);
		await client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
		expect(JSON.stringify(harness.server.requests[1]?.body)).toContain("from disk");
		expect(client.fsRequests).toEqual([]);
	});

	it("bash runs in the client's terminal when it offers one, and the call shows the terminal", async () => {
		const { client, dirs } = await harness.start({ terminal: true });
		const { updates } = await runTool(client, dirs.work, "bash", { command: "echo in-terminal; exit 3" });
		expect(client.terminalCommands).toEqual([expect.stringContaining("-c echo in-terminal; exit 3")]);
		const final = updates[updates.length - 1];
		expect(final?.status).toBe("failed");
		expect(final?.content?.[0]).toEqual({ type: "terminal", terminalId: "term-1" });
		const result = JSON.stringify(harness.server.requests[1]?.body);
		expect(result).toContain("in-terminal");
		expect(result).toContain("Command exited with code 3");
	});
});
