import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textReply, toolReply } from "../support/llm-server.js";
import { startWithExtensions, textResult, toolEnds, uiFrames } from "./extensions-helpers.js";
import { jsonlFiles, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

interface AnthropicTool {
	name: string;
	description: string;
	input_schema: unknown;
}

describe("word-count-tool over RPC", () => {
	it("offers word_count to the model and returns its count", async () => {
		const { agent } = await startWithExtensions(harness.server, {
			examples: ["word-count-tool.ts"],
			prepare: (dirs) => writeFileSync(join(dirs.work, "notes.txt"), "one two  three\nfour\n"),
		});
		harness.server.enqueue(toolReply("word_count", { path: "notes.txt" }), textReply("counted"));
		const { start } = await agent.prompt("count notes.txt");

		const first = harness.server.requests[0]?.body as { tools: AnthropicTool[]; system: { text: string }[] };
		const tools = first.tools;
		expect(tools.filter((tool) => tool.name === "word_count")).toEqual([
			{
				name: "word_count",
				description: "Count the lines, words and characters of a text file (path relative to the working directory).",
				input_schema: {
					type: "object",
					properties: { path: { type: "string", description: "The file to count" } },
					required: ["path"],
				},
			},
		]);
		// The built-in tools are still there, and the system prompt lists the new one too.
		expect(tools.map((tool) => tool.name)).toContain("bash");
		expect(first.system.map((block) => block.text).join("\n")).toContain(
			"\n- word_count: Count the lines, words and characters of a text file (path relative to the working directory).\n",
		);

		const text = "notes.txt: 2 lines, 4 words, 20 characters";
		expect(toolEnds(agent, start)).toEqual([
			{
				type: "tool_execution_end",
				toolCallId: expect.any(String),
				toolName: "word_count",
				result: textResult(text, { lines: 2, words: 4, characters: 20 }),
				isError: false,
			},
		]);
		const body = harness.server.requests[1]?.body as { messages: { content: unknown[] }[] };
		expect(body.messages.at(-1)?.content[0]).toMatchObject({
			type: "tool_result",
			content: [{ type: "text", text }],
		});
	});
});

describe("no-forks over RPC", () => {
	it("cancels fork and clone with a notification; the session files stay as they were", async () => {
		const { agent, sessionDir } = await startWithExtensions(harness.server, {
			examples: ["no-forks.ts"],
			sessions: true,
		});
		harness.server.enqueue(textReply("answer one"), textReply("answer two"));
		await agent.prompt("first");
		await agent.prompt("second");
		const before = (await agent.ok({ type: "get_state" })) as { sessionFile: string; sessionId: string };
		const content = readFileSync(before.sessionFile, "utf8");
		const { messages } = (await agent.ok({ type: "get_fork_messages" })) as { messages: { entryId: string }[] };
		expect(messages).toHaveLength(2);

		const start = agent.mark();
		const fork = await agent.request({ id: "fk", type: "fork", entryId: messages[1]?.entryId });
		expect(fork).toEqual({
			id: "fk",
			type: "response",
			command: "fork",
			success: true,
			data: { text: "second", cancelled: true },
		});
		const clone = await agent.request({ id: "cl", type: "clone" });
		expect(clone).toEqual({ id: "cl", type: "response", command: "clone", success: true, data: { cancelled: true } });

		const notify = {
			type: "extension_ui_request",
			method: "notify",
			message: "Forking is disabled in this project (no-forks extension)",
			notifyType: "warning",
		};
		expect(uiFrames(agent, start)).toEqual([notify, notify]);
		// Each notification precedes the response it belongs to.
		expect(agent.since(start).map((record) => record.type)).toEqual([
			"extension_ui_request",
			"response",
			"extension_ui_request",
			"response",
		]);
		expect(await agent.ok({ type: "get_state" })).toMatchObject(before);
		expect(readFileSync(before.sessionFile, "utf8")).toBe(content);
		expect(jsonlFiles(sessionDir)).toEqual([before.sessionFile]);
	});
});
