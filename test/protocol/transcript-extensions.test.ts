/**
 * An extension that uses every extension UI method, adds a custom entry and a custom message and
 * then throws: the dialogs are answered, and every record and command is checked against the
 * RPC schema.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startAgent, useRpcHarness } from "../rpc/helpers.js";
import type { RpcAgent, RpcRecord } from "../support/rpc-process.js";
import { expectCovered, expectValidTranscript, recordCommands, waitIdle } from "./transcript.js";

const harness = useRpcHarness();

const TOUR = `
export default function (atomic) {
	atomic.registerCommand("ui-tour", {
		description: "Every extension UI request",
		handler: async (_args, ctx) => {
			const choice = await ctx.ui.select("Pick one", ["A", "B"], { timeout: 60000 });
			const sure = await ctx.ui.confirm("Sure?", "Really " + choice + "?");
			const name = await ctx.ui.input("Your name", "type here");
			const text = await ctx.ui.editor("Edit", "line 1\\nline 2");
			ctx.ui.notify("picked " + [choice, sure, name, text].join(" "), "warning");
			ctx.ui.notify("plain");
			ctx.ui.setStatus("tour", "touring");
			ctx.ui.setStatus("tour");
			ctx.ui.setWidget("tour", ["one", "two"], { placement: "belowEditor" });
			ctx.ui.setWidget("tour");
			ctx.ui.setTitle("tour title");
			ctx.ui.setEditorText("next prompt");
			atomic.appendEntry("tour", { done: true });
			atomic.sendMessage({ customType: "tour", content: "the tour ran", display: true }, { deliverAs: "nextTurn" });
			throw new Error("the tour fails on purpose");
		},
	});
}
`;

function dialog(agent: RpcAgent, method: string, start: number): Promise<RpcRecord> {
	return agent.waitForEvent("extension_ui_request", (record) => record.method === method, start);
}

describe("recorded transcripts match the RPC schema", () => {
	it("extension UI requests, extension errors and custom messages", { timeout: 60_000 }, async () => {
		const { agent } = await startAgent(harness.server, {
			args: ["-e", "../ext/tour.js"],
			prepare: (dirs) => {
				mkdirSync(join(dirs.root, "ext"));
				writeFileSync(join(dirs.root, "ext", "tour.js"), TOUR);
			},
		});
		const sent = recordCommands(agent);
		const start = agent.mark();
		const accepted = agent.request({ type: "prompt", message: "/ui-tour" });
		const answers: [string, Record<string, unknown>][] = [
			["select", { value: "B" }],
			["confirm", { confirmed: true }],
			["input", { cancelled: true }],
			["editor", { value: "edited" }],
		];
		for (const [method, answer] of answers) {
			const request = await dialog(agent, method, start);
			agent.send({ type: "extension_ui_response", id: request.id, ...answer });
		}
		const error = await agent.waitForEvent("extension_error", () => true, start);
		expect(error.error).toContain("the tour fails on purpose");
		expect((await accepted).success).toBe(true);
		await agent.waitForEvent("extension_ui_request", (record) => record.method === "set_editor_text", start);

		await agent.prompt("after the tour");
		await waitIdle(agent);
		const { messages } = (await agent.ok({ type: "get_messages" })) as { messages: { role: string }[] };
		expect(messages.map((message) => message.role)).toContain("custom");
		const { entries } = (await agent.ok({ type: "get_entries" })) as { entries: { type: string }[] };
		expect(entries.map((entry) => entry.type)).toContain("custom");
		const { commands } = (await agent.ok({ type: "get_commands" })) as { commands: { source: string }[] };
		expect(commands.map((command) => command.source)).toContain("extension");

		const seen = expectValidTranscript(agent.records, sent);
		expectCovered(seen, [
			"event.extension_error",
			...[
				"select",
				"confirm",
				"input",
				"editor",
				"notify",
				"setStatus",
				"setWidget",
				"setTitle",
				"set_editor_text",
			].map((method) => `event.extension_ui_request.${method}`),
			"ExtensionUiResponse",
			"response.get_commands",
		]);
	});
});
