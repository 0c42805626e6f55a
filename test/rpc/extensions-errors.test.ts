import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textReply, toolReply } from "../support/llm-server.js";
import { FIXTURES, startWithExtensions, textResult, toolEnds, uiFrames } from "./extensions-helpers.js";
import { indexOf, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

const THROWS_AT_IMPORT = 'throw new Error("broken at load");\nexport default function () {}\n';
const THROWS_IN_FACTORY = 'export default function () {\n\tthrow new Error("factory failed");\n}\n';

describe("extension_error over RPC", () => {
	it("reports extensions that fail to load; the others still work", async () => {
		const { agent, sourcePath } = await startWithExtensions(harness.server, {
			examples: ["status-widget.ts"],
			sources: { "broken.ts": THROWS_AT_IMPORT, "factory.ts": THROWS_IN_FACTORY },
		});
		const start = agent.mark();
		await agent.ok({ type: "prompt", message: "/status-demo still here" });
		expect(uiFrames(agent, start).map((frame) => frame.method)).toEqual(["setStatus", "setWidget", "notify"]);
		expect(agent.records.filter((record) => record.type === "extension_error")).toEqual([
			{ type: "extension_error", extensionPath: sourcePath("broken.ts"), event: "load", error: "broken at load" },
			{ type: "extension_error", extensionPath: sourcePath("factory.ts"), event: "load", error: "factory failed" },
		]);
		expect(((await agent.ok({ type: "get_commands" })) as { commands: { name: string }[] }).commands).toMatchObject([
			{ name: "status-demo" },
		]);
	});

	it("a throwing command is reported as command:<name>, and its prompt still succeeds", async () => {
		const { agent } = await startWithExtensions(harness.server, { fixtures: ["failing.ts"] });
		const start = agent.mark();
		const response = await agent.request({ id: "boom", type: "prompt", message: "/explode now" });
		expect(response).toEqual({
			id: "boom",
			type: "response",
			command: "prompt",
			success: true,
			data: { disposition: "handled" },
		});
		expect(agent.since(start)).toEqual([
			{ type: "extension_error", extensionPath: "command:explode", event: "command", error: "kaboom" },
			response,
		]);
		expect(harness.server.requests).toHaveLength(0);
	});

	it("a throwing tool_call handler blocks the call (fail closed) and is reported", async () => {
		const { agent, dirs } = await startWithExtensions(harness.server, { fixtures: ["failing.ts"] });
		harness.server.enqueue(toolReply("bash", { command: "touch ran.txt" }), textReply("done"));
		const { start } = await agent.prompt("touch it");
		expect(existsSync(join(dirs.work, "ran.txt"))).toBe(false);
		expect(toolEnds(agent, start)).toMatchObject([
			{
				toolName: "bash",
				isError: true,
				result: textResult("Extension failed, blocking execution: hook failed"),
			},
		]);
		const error = indexOf(agent, (record) => record.type === "extension_error", start);
		expect(agent.records[error]).toEqual({
			type: "extension_error",
			extensionPath: join(FIXTURES, "failing.ts"),
			event: "tool_call",
			error: "hook failed",
		});
		expect(error).toBeLessThan(indexOf(agent, (record) => record.type === "tool_execution_end", start));
		expect(harness.server.requests).toHaveLength(2);

		// The process survives all of it.
		await agent.ok({ type: "prompt", message: "/explode" });
		expect(await agent.ok({ type: "get_state" })).toMatchObject({ isStreaming: false });
		expect(agent.child.exitCode).toBeNull();
		expect(agent.child.signalCode).toBeNull();
	});
});
