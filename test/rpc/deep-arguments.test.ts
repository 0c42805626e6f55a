import { describe, expect, it } from "vitest";
import { textReply, toolReply } from "../support/llm-server.js";
import { expectExitOnEof, expectResponsive } from "../support/responsive.js";
import { startWithExtensions } from "./extensions-helpers.js";
import { startAgent, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

/** The same as JSON text, built without recursion (this process could not serialise it either). */
function nestedJson(depth: number): string {
	return `{"v":${"[".repeat(depth)}1${"]".repeat(depth)}}`;
}

describe("tool arguments nested thousands of levels deep", () => {
	for (const depth of [2000, 4000, 100_000]) {
		it(`become a tool error the model sees, and the run ends with its events (${depth} levels)`, async () => {
			const { agent } = await startAgent(harness.server);
			const call = {
				type: "toolCall" as const,
				name: "ls",
				arguments: {},
				rawArguments: nestedJson(depth),
				argumentChunks: 8,
			};
			harness.server.enqueue({ blocks: [call] }, textReply("recovered"));
			const { start } = await agent.prompt("go");
			const end = await agent.waitForEvent("tool_execution_end", () => true, start);
			expect(end).toMatchObject({ toolName: "ls", isError: true });
			expect(JSON.stringify(end.result)).toContain("nested more than 100 levels deep");
			for (const type of ["turn_end", "agent_end", "agent_settled"]) {
				expect(agent.since(start, type).length, type).toBeGreaterThan(0);
			}
			// The model saw the error and answered it; the conversation is still readable and sendable.
			expect(JSON.stringify(harness.server.requests[1]?.body)).toContain("nested more than 100 levels deep");
			expect(await agent.ok({ type: "get_messages" })).toMatchObject({ messages: expect.any(Array) });
			await expectResponsive(agent);
			await expectExitOnEof(agent);
		});
	}
});

/** An extension tool whose result details cannot be serialised as they are. */
const UNSERIALISABLE_TOOL = `export default function (atomic) {
	atomic.registerTool({
		name: "odd",
		label: "Odd",
		description: "Returns details that JSON cannot hold",
		parameters: { type: "object", properties: {} },
		async execute() {
			const details = { count: 10n };
			details.self = details;
			let deep = 1;
			for (let level = 0; level < 100000; level++) deep = [deep];
			details.deep = deep;
			return { content: [{ type: "text", text: "odd result" }], details };
		},
	});
}
`;

describe("events that do not serialise as they are", () => {
	it("still go out, with the odd parts replaced, and the run ends with its events", async () => {
		const { agent } = await startWithExtensions(harness.server, { sources: { "odd.ts": UNSERIALISABLE_TOOL } });
		harness.server.enqueue(toolReply("odd", {}), textReply("done"));
		const { start } = await agent.prompt("call it");
		const end = await agent.waitForEvent("tool_execution_end", () => true, start);
		expect(end).toMatchObject({
			isError: false,
			result: { details: { count: "10", self: "[circular reference]", deep: expect.any(Array) } },
		});
		expect(JSON.stringify(end)).toContain("[nested more than 64 levels deep]");
		expect(agent.since(start, "agent_end")).toHaveLength(1);
		expect(agent.stderr).toContain("did not serialise as it is");
		// The HTML export shows such details with the same replacements instead of failing.
		expect(await agent.request({ type: "export_html", outputPath: "odd.html" })).toMatchObject({ success: true });
		await expectResponsive(agent);
		await expectExitOnEof(agent);
	});
});
