import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import { PNG_1X1 } from "../support/mcp-server.js";
import { processExists } from "../support/mcp-stdio.js";
import { createManager, type ManagerHarness, stdioConfig } from "./helpers.js";

const harnesses: ManagerHarness[] = [];

function harness(...args: Parameters<typeof createManager>): ManagerHarness {
	const created = createManager(...args);
	harnesses.push(created);
	return created;
}

afterEach(async () => {
	for (const created of harnesses.splice(0)) await created.manager.close();
});

function tool(h: ManagerHarness, name: string): AgentTool {
	const found = h.manager.tools().find((candidate) => candidate.name === name);
	if (!found) throw new Error(`no tool ${name}; have ${h.manager.tools().map((candidate) => candidate.name)}`);
	return found;
}

function run(
	h: ManagerHarness,
	name: string,
	args: Record<string, unknown> = {},
	signal = new AbortController().signal,
) {
	return tool(h, name).execute("call-1", args, signal, () => undefined);
}

async function connected(name = "test", options: Parameters<typeof stdioConfig>[1] = {}): Promise<ManagerHarness> {
	const h = harness();
	h.manager.add([await stdioConfig(name, options)]);
	await h.waitForUpdate((update) => update.status === "connected");
	return h;
}

describe("MCP server over stdio", () => {
	it("starts in the background and offers each tool as mcp__<server>__<tool>, schema and description unchanged", async () => {
		const h = harness();
		h.manager.add([await stdioConfig("test")]);
		expect(h.updates[0]).toEqual({ type: "mcp_server_update", name: "test", status: "starting", tools: 0 });
		await h.waitForUpdate((update) => update.status === "connected");
		expect(h.updates.at(-1)).toEqual({ type: "mcp_server_update", name: "test", status: "connected", tools: 9 });
		const echo = tool(h, "mcp__test__echo");
		expect(echo.description).toBe("Echo the text back. Read-only.");
		expect(echo.parameters).toEqual({
			type: "object",
			properties: { text: { type: "string" } },
			required: ["text"],
		});
		expect(h.manager.servers()).toEqual([
			{
				name: "test",
				status: "connected",
				transport: "stdio",
				source: "user",
				tools: [
					"mcp__test__echo",
					"mcp__test__image",
					"mcp__test__fail",
					"mcp__test__structured",
					"mcp__test__resource",
					"mcp__test__write_note",
					"mcp__test__wait",
					"mcp__test__crash",
					"mcp__test__add_tool",
				],
			},
		]);
	});

	it("marks a tool read-only exactly when the server gives it readOnlyHint: true", async () => {
		const h = await connected();
		expect(tool(h, "mcp__test__echo").readOnly).toBe(true);
		const others = h.manager.tools().filter((candidate) => candidate.name !== "mcp__test__echo");
		expect(others.map((candidate) => candidate.readOnly)).toEqual(others.map(() => undefined));
	});

	it("turns text, image, error, structured and resource results into tool results", async () => {
		const h = await connected();
		const details = (name: string) => ({ server: "test", tool: name });
		expect(await run(h, "mcp__test__echo", { text: "hello" })).toEqual({
			content: [{ type: "text", text: "hello" }],
			details: details("echo"),
		});
		expect(await run(h, "mcp__test__image")).toEqual({
			content: [
				{ type: "image", data: PNG_1X1, mimeType: "image/png" },
				{ type: "text", text: "a red dot" },
			],
			details: details("image"),
		});
		expect(await run(h, "mcp__test__fail", { message: "no such file" })).toEqual({
			content: [{ type: "text", text: "no such file" }],
			details: details("fail"),
			isError: true,
		});
		const structured = { temperature: 21.5, unit: "C" };
		expect(await run(h, "mcp__test__structured")).toEqual({
			content: [{ type: "text", text: JSON.stringify(structured, null, 2) }],
			details: { ...details("structured"), structuredContent: structured },
		});
		expect(await run(h, "mcp__test__resource")).toEqual({
			content: [{ type: "text", text: "note text" }],
			details: details("resource"),
		});
	});

	it("refreshes the tool list on tools/list_changed", async () => {
		const h = await connected();
		const before = h.updates.length;
		expect(await run(h, "mcp__test__add_tool", { name: "late.tool" })).toMatchObject({
			content: [{ type: "text", text: "added late.tool" }],
		});
		await h.manager.settled();
		expect(h.manager.tools().map((candidate) => candidate.name)).toContain("mcp__test__late_tool");
		expect(h.updates.slice(before)).toEqual([
			{ type: "mcp_server_update", name: "test", status: "connected", tools: 10 },
		]);
		expect(await run(h, "mcp__test__late_tool")).toMatchObject({ content: [{ type: "text", text: "late.tool ran" }] });
	});

	it("fails a server that exits mid-call with a tool error naming it, and reconnects once on the next call", async () => {
		const dir = mkdtempSync(join(tmpdir(), "atomic-mcp-"));
		const pidFile = join(dir, "pid");
		const h = await connected("crashy", { pidFile });
		const firstPid = Number(readFileSync(pidFile, "utf8"));
		await expect(run(h, "mcp__crashy__crash")).rejects.toThrow(
			'MCP server "crashy" failed during the call to "crash": the server process exited (exit code 3); stderr: crashing on purpose',
		);
		expect(h.manager.servers()[0]).toMatchObject({
			status: "failed",
			error: "the server process exited (exit code 3); stderr: crashing on purpose",
		});
		// Its tools stay on offer: the next call reconnects.
		const failedAt = h.updates.length;
		expect(await run(h, "mcp__crashy__echo", { text: "back" })).toMatchObject({
			content: [{ type: "text", text: "back" }],
		});
		expect(h.updates.slice(failedAt).map((update) => update.status)).toEqual(["starting", "connected"]);
		expect(Number(readFileSync(pidFile, "utf8"))).not.toBe(firstPid);
	});

	it("answers the next call with an error naming the server when the reconnect fails too", async () => {
		const dir = mkdtempSync(join(tmpdir(), "atomic-mcp-"));
		const script = join(dir, "server.mjs");
		const entry = await stdioConfig("crashy");
		if (entry.transport !== "stdio") throw new Error("expected a stdio entry");
		copyFileSync(entry.args[0] as string, script);
		const h = harness();
		h.manager.add([{ ...entry, args: [script, ...entry.args.slice(1)] }]);
		await h.waitForUpdate((update) => update.status === "connected");
		await expect(run(h, "mcp__crashy__crash")).rejects.toThrow('MCP server "crashy" failed during the call');
		rmSync(script);
		await expect(run(h, "mcp__crashy__echo", { text: "x" })).rejects.toThrow(
			/^MCP server "crashy" is not available: .*Connection closed; stderr: .*Cannot find module/,
		);
		expect(h.manager.servers()[0]?.status).toBe("failed");
	});

	it("reports a server whose command cannot start as failed, with the reason", async () => {
		const h = harness();
		h.manager.add([
			{ name: "missing", source: "user", transport: "stdio", command: "/nonexistent/server", args: [], env: {} },
		]);
		const failed = await h.waitForUpdate((update) => update.status === "failed");
		expect(failed).toEqual({
			type: "mcp_server_update",
			name: "missing",
			status: "failed",
			tools: 0,
			error: "spawn /nonexistent/server ENOENT",
		});
	});

	it("gives up on a server that does not start within the startup timeout, and ends its process", async () => {
		const pidFile = join(mkdtempSync(join(tmpdir(), "atomic-mcp-")), "pid");
		const h = harness({ startupTimeoutMs: 300 });
		h.manager.add([await stdioConfig("slow", { startDelayMs: 60_000, pidFile })]);
		const failed = await h.waitForUpdate((update) => update.status === "failed");
		expect(failed.error).toBe("did not start within 300 ms");
		const pid = Number(readFileSync(pidFile, "utf8"));
		expect(processExists(pid)).toBe(false);
	});

	it("ends the server process on close, even one that ignores stdin EOF and SIGTERM", async () => {
		const pidFile = join(mkdtempSync(join(tmpdir(), "atomic-mcp-")), "pid");
		const h = await connected("stubborn", { pidFile, stubborn: true });
		const pid = Number(readFileSync(pidFile, "utf8"));
		expect(processExists(pid)).toBe(true);
		await h.manager.close();
		expect(processExists(pid)).toBe(false);
		expect(h.updates.at(-1)).toEqual({ type: "mcp_server_update", name: "stubborn", status: "closed", tools: 0 });
		expect(h.manager.tools()).toEqual([]);
	});

	it("lists project servers it was told to skip, without starting them", async () => {
		const h = harness();
		const config = { ...(await stdioConfig("repo")), source: "project" as const };
		h.manager.add([config], { skip: true });
		await h.manager.settled();
		expect(h.manager.servers()).toEqual([
			{ name: "repo", status: "skipped", transport: "stdio", source: "project", tools: [] },
		]);
		expect(h.updates).toEqual([{ type: "mcp_server_update", name: "repo", status: "skipped", tools: 0 }]);
	});
});
