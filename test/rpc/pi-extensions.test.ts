/**
 * Extensions written for pi, loaded unchanged: imports from pi's package names, defineTool and
 * StringEnum, prompt hints, a session_before_switch guard reading ctx.sessionManager,
 * before_agent_start and context, and the named errors for what Atomic does not provide.
 */
import { dirname, join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { textReply, toolReply } from "../support/llm-server.js";
import { answer, FIXTURES, nextDialog, startWithExtensions, toolEnds } from "./extensions-helpers.js";
import { transcript, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

interface AnthropicRequest {
	system: { text: string }[];
	tools: { name: string; description: string; input_schema: unknown }[];
}

function systemText(index: number): string {
	const body = harness.server.requests[index]?.body as AnthropicRequest;
	return body.system.map((block) => block.text).join("\n");
}

describe("a pi tool extension (pi-ai, pi-tui, @sinclair/typebox, defineTool)", () => {
	it("offers the tool with its StringEnum schema, and its prompt hints reach the request", async () => {
		const { agent } = await startWithExtensions(harness.server, { fixtures: ["pi-color-tool.ts"] });
		harness.server.enqueue(toolReply("paint", { color: "blue", coats: 2 }), textReply("done"));
		const { start } = await agent.prompt("paint it blue");

		const body = harness.server.requests[0]?.body as AnthropicRequest;
		expect(body.tools.find((tool) => tool.name === "paint")).toEqual({
			name: "paint",
			description: "Paints the wall in one color. Extra sentences stay out of the tool list.",
			input_schema: {
				type: "object",
				properties: {
					color: { type: "string", enum: ["red", "green", "blue"], description: "The color" },
					coats: { type: "integer", minimum: 1 },
				},
				required: ["color"],
			},
		});
		const system = systemText(0);
		expect(system).toContain("\n- paint: paint the wall (red, green or blue)\n");
		expect(system).toContain("\n- Use paint only when the user names a color.\n");
		expect(toolEnds(agent, start).map((record) => [record.result, record.isError])).toEqual([
			[{ content: [{ type: "text", text: "painted blue x2" }], details: { coats: 2 } }, false],
		]);
	});

	it("validates arguments against the StringEnum", async () => {
		const { agent } = await startWithExtensions(harness.server, { fixtures: ["pi-color-tool.ts"] });
		harness.server.enqueue(toolReply("paint", { color: "pink" }), textReply("sorry"));
		const { start } = await agent.prompt("paint it pink");
		const [end] = toolEnds(agent, start);
		expect(end?.isError).toBe(true);
		expect(JSON.stringify(end?.result)).toContain("color");
	});
});

describe("a session_before_switch guard reading ctx.sessionManager", () => {
	it("asks with what it read from the session, cancels on no, and lets a saved session go", async () => {
		const { agent, dirs } = await startWithExtensions(harness.server, {
			fixtures: ["pi-session-guard.ts"],
			sessions: true,
		});
		harness.server.enqueue(textReply("hi there"));
		await agent.prompt("hello");
		const state = (await agent.ok({ type: "get_state" })) as { sessionId: string; sessionFile: string };
		const { entries, leafId } = (await agent.ok({ type: "get_entries" })) as {
			entries: { type: string }[];
			leafId: string;
		};

		let from = agent.mark();
		agent.send({ id: "new-1", type: "new_session" });
		const dialog = await nextDialog(agent, "confirm", from);
		expect(dialog.title).toBe("Leave with unsaved work?");
		expect(dialog.message).toBe(
			[
				"2 unsaved messages",
				`session ${state.sessionId} in ${dirs.work}`,
				`file ${state.sessionFile}`,
				`leaf ${leafId} (message), branch of ${entries.length}`,
				"going new",
			].join("; "),
		);
		answer(agent, dialog, { confirmed: false });
		const refused = await agent.waitFor((record) => record.type === "response" && record.id === "new-1", {
			start: from,
		});
		expect(refused.data).toEqual({ cancelled: true });
		expect(((await agent.ok({ type: "get_state" })) as { sessionId: string }).sessionId).toBe(state.sessionId);

		// Saved work leaves without asking.
		await agent.request({ type: "prompt", message: "/save" });
		from = agent.mark();
		expect(await agent.ok({ type: "new_session" })).toEqual({ cancelled: false });
		expect(agent.since(from, "extension_ui_request").filter((record) => record.method === "confirm")).toEqual([]);

		// Unsaved work again, now switching back to the first file: the guard names the target.
		harness.server.enqueue(textReply("ok"));
		await agent.prompt("more");
		from = agent.mark();
		agent.send({ id: "switch-1", type: "switch_session", sessionPath: state.sessionFile });
		const second = await nextDialog(agent, "confirm", from);
		expect(second.message).toMatch(
			new RegExp(`; going resume to ${state.sessionFile.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`),
		);
		answer(agent, second, { confirmed: true });
		const switched = await agent.waitFor((record) => record.type === "response" && record.id === "switch-1", {
			start: from,
		});
		expect(switched.data).toEqual({ cancelled: false });
		expect(((await agent.ok({ type: "get_state" })) as { sessionId: string }).sessionId).toBe(state.sessionId);
	});
});

describe("before_agent_start and context", () => {
	it("replace the system prompt for each run, add a message, and trim older ones", async () => {
		const { agent } = await startWithExtensions(harness.server, { fixtures: ["pi-agent-start.ts"] });
		harness.server.enqueue(textReply("arr, first"), textReply("arr, second"));
		await agent.prompt("first");
		await agent.prompt("second");

		const first = systemText(0);
		const second = systemText(1);
		expect(first.endsWith('\n\nAnswer like a pirate. (Run started by prompt "first".)')).toBe(true);
		// The replacement lasts one run: the second starts from the base prompt again.
		expect(second.endsWith('\n\nAnswer like a pirate. (Run started by prompt "second".)')).toBe(true);
		expect(second).not.toContain('prompt "first"');
		expect(transcript(harness.server.requests[0])).toEqual(["user: first", "user: Remember: arr."]);
		// The context hook keeps only the newest reminder; the session keeps both.
		expect(transcript(harness.server.requests[1])).toEqual([
			"user: first",
			"assistant: arr, first",
			"user: second",
			"user: Remember: arr.",
		]);
		const { entries } = (await agent.ok({ type: "get_entries" })) as {
			entries: { type: string; customType?: string; display?: boolean }[];
		};
		expect(entries.filter((entry) => entry.type === "custom_message")).toEqual([
			expect.objectContaining({ customType: "pirate-reminder", display: false }),
			expect.objectContaining({ customType: "pirate-reminder", display: false }),
		]);
	});
});

describe("what Atomic does not provide", () => {
	it("fails with errors that name the missing member", async () => {
		const { agent } = await startWithExtensions(harness.server, { fixtures: ["pi-unavailable.ts"] });
		const registered = await agent.waitForEvent("extension_error");
		expect(registered).toMatchObject({
			event: "registerProvider",
			error: "pi.registerProvider is not available in Atomic: providers come from models.json",
		});

		let from = agent.mark();
		await agent.request({ type: "prompt", message: "/picker" });
		expect(agent.since(from, "extension_ui_request")).toMatchObject([
			{ method: "notify", message: "custom gave undefined" },
		]);
		expect(agent.since(from, "extension_error")).toMatchObject([
			{
				extensionPath: "command:picker",
				error: '"SelectList" from "@earendil-works/pi-tui" is not available in Atomic: there is no terminal to draw on',
			},
		]);

		from = agent.mark();
		await agent.request({ type: "prompt", message: "/sessions" });
		expect(agent.since(from, "extension_error")).toMatchObject([
			{
				extensionPath: "command:sessions",
				error:
					'"SessionManager.list" from "@earendil-works/pi-coding-agent" is not available in Atomic: it belongs to pi\'s SDK or terminal UI',
			},
		]);
	});
});

describe("resources_discover", () => {
	it("adds the skills and prompt templates an extension ships", async () => {
		const { agent } = await startWithExtensions(harness.server, { fixtures: ["pi-resources"] });
		const skill = join(FIXTURES, "pi-resources", "skills", "shout", "SKILL.md");
		const template = join(FIXTURES, "pi-resources", "prompts", "greet.md");
		const listed = async () =>
			((await agent.ok({ type: "get_commands" })) as { commands: { name: string }[] }).commands.map(
				(command) => command.name,
			);
		// Discovery runs after start-up; wait until its load is visible.
		await vi.waitFor(async () => expect(await listed()).toEqual(["greet", "skill:shout"]), { timeout: 10_000 });
		const commands = ((await agent.ok({ type: "get_commands" })) as { commands: unknown[] }).commands;
		expect(commands).toEqual([
			expect.objectContaining({
				name: "greet",
				source: "prompt",
				sourceInfo: {
					path: template,
					source: "cli",
					scope: "temporary",
					origin: "top-level",
					baseDir: dirname(template),
				},
			}),
			expect.objectContaining({
				name: "skill:shout",
				source: "skill",
				sourceInfo: { path: skill, source: "cli", scope: "temporary", origin: "top-level", baseDir: dirname(skill) },
			}),
		]);
		harness.server.enqueue(textReply("HELLO BOB"));
		await agent.prompt("/greet Bob");
		expect(transcript(harness.server.requests[0])).toEqual(["user: Say hello to Bob."]);
	});
});
