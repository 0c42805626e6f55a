import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textReply } from "../support/llm-server.js";
import type { RpcAgent } from "../support/rpc-process.js";
import { EXAMPLES, startWithExtensions, uiFrames, writeFile } from "./extensions-helpers.js";
import { type AgentDirs, responsesWithId, transcript, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

const QUEUED_ERROR =
	'Extension command "/status-demo" cannot be queued. Use prompt() or execute the command when not streaming.';

/** The three frames `/status-demo <args>` writes. */
function statusDemoFrames(dirs: AgentDirs, busy: "idle" | "busy", args: string): Record<string, unknown>[] {
	return [
		{
			type: "extension_ui_request",
			method: "setStatus",
			statusKey: "status-demo",
			statusText: `mock/mock-model · ${busy}`,
		},
		{
			type: "extension_ui_request",
			method: "setWidget",
			widgetKey: "status-demo",
			widgetLines: ["--- status demo ---", `cwd: ${dirs.work}`, `args: ${args}`],
			widgetPlacement: "belowEditor",
		},
		{ type: "extension_ui_request", method: "notify", message: "Status demo updated", notifyType: "info" },
	];
}

/** Starts a prompt whose reply stalls after its first frames; resolves once the reply streams. */
async function streamingPrompt(agent: RpcAgent): Promise<number> {
	harness.server.enqueue({ ...textReply("a reply that never ends"), fault: "stall", faultAfterFrames: 3 });
	const start = agent.mark();
	await agent.ok({ type: "prompt", message: "hello" });
	await agent.waitForEvent(
		"message_start",
		(record) => (record.message as { role: string }).role === "assistant",
		start,
	);
	return start;
}

/** pi's sourceInfo of a file given with -e. */
const cliPath = (path: string) => ({ path, source: "cli", scope: "temporary", origin: "top-level" });

describe("extension commands over RPC", () => {
	it("/status-demo writes its frames, then exactly one success response, and calls no model", async () => {
		const { agent, dirs } = await startWithExtensions(harness.server, { examples: ["status-widget.ts"] });
		const start = agent.mark();
		const response = await agent.request({ id: "cmd", type: "prompt", message: "/status-demo some args" });
		expect(response).toEqual({
			id: "cmd",
			type: "response",
			command: "prompt",
			success: true,
			data: { disposition: "handled" },
		});
		// A later command's response proves nothing else was on its way from the first one.
		await agent.ok({ id: "after", type: "get_state" });
		expect(uiFrames(agent, start)).toEqual(statusDemoFrames(dirs, "idle", "some args"));
		expect(agent.since(start).map((record) => record.type)).toEqual([
			"extension_ui_request",
			"extension_ui_request",
			"extension_ui_request",
			"response",
			"response",
		]);
		expect(responsesWithId(agent, "cmd")).toHaveLength(1);
		expect(harness.server.requests).toHaveLength(0);
	});

	it("runs at once while the agent streams; steer and follow_up refuse it", async () => {
		const { agent, dirs } = await startWithExtensions(harness.server, { examples: ["status-widget.ts"] });
		const run = await streamingPrompt(agent);
		const start = agent.mark();
		const response = await agent.request({ id: "busy-cmd", type: "prompt", message: "/status-demo busy" });
		expect(response).toEqual({
			id: "busy-cmd",
			type: "response",
			command: "prompt",
			success: true,
			data: { disposition: "handled" },
		});
		expect(uiFrames(agent, start)).toEqual(statusDemoFrames(dirs, "busy", "busy"));
		expect(agent.since(run, "agent_end")).toEqual([]);

		expect(await agent.request({ id: "st", type: "steer", message: "/status-demo" })).toEqual({
			id: "st",
			type: "response",
			command: "steer",
			success: false,
			error: QUEUED_ERROR,
		});
		expect(await agent.request({ id: "fu", type: "follow_up", message: "/status-demo x" })).toEqual({
			id: "fu",
			type: "response",
			command: "follow_up",
			success: false,
			error: QUEUED_ERROR,
		});
		const queued = agent.mark();
		// With a streamingBehavior a prompt still runs the command at once instead of queueing it.
		await agent.ok({ type: "prompt", message: "/status-demo steered", streamingBehavior: "steer" });
		expect(uiFrames(agent, queued)).toEqual(statusDemoFrames(dirs, "busy", "steered"));
		expect(((await agent.ok({ type: "get_state" })) as { pendingMessageCount: number }).pendingMessageCount).toBe(0);
		expect(agent.since(run, "agent_end")).toEqual([]);

		await agent.ok({ type: "abort" });
		await agent.waitForEvent("agent_settled", () => true, run);
		expect(harness.server.requests).toHaveLength(1);
	});
});

describe("get_commands with extensions", () => {
	it("lists extension commands first, then templates, then skills", async () => {
		const bare =
			'export default function (atomic) {\n\tatomic.registerCommand("bare", { handler: () => undefined });\n}\n';
		const { agent, dirs, sourcePath } = await startWithExtensions(harness.server, {
			examples: ["status-widget.ts"],
			sources: { "bare.ts": bare },
			prepare: (prepared) => {
				writeFile(
					join(prepared.agentDir, "prompts", "review.md"),
					"---\ndescription: Review a file\n---\nReview $1.\n",
				);
				writeFile(
					join(prepared.agentDir, "skills", "lint-check", "SKILL.md"),
					"---\nname: lint-check\ndescription: Run the linter\n---\nRun it.\n",
				);
			},
		});
		expect(await agent.ok({ type: "get_commands" })).toEqual({
			commands: [
				{
					name: "status-demo",
					description: "Show a status entry, a widget and a notification",
					source: "extension",
					path: join(EXAMPLES, "status-widget.ts"),
					sourceInfo: cliPath(join(EXAMPLES, "status-widget.ts")),
				},
				{ name: "bare", source: "extension", path: sourcePath("bare.ts"), sourceInfo: cliPath(sourcePath("bare.ts")) },
				{
					name: "review",
					description: "Review a file",
					source: "prompt",
					location: "user",
					path: join(dirs.agentDir, "prompts", "review.md"),
					sourceInfo: {
						path: join(dirs.agentDir, "prompts", "review.md"),
						source: "local",
						scope: "user",
						origin: "top-level",
						baseDir: join(dirs.agentDir, "prompts"),
					},
				},
				{
					name: "skill:lint-check",
					description: "Run the linter",
					source: "skill",
					location: "user",
					path: join(dirs.agentDir, "skills", "lint-check", "SKILL.md"),
					sourceInfo: {
						path: join(dirs.agentDir, "skills", "lint-check", "SKILL.md"),
						source: "local",
						scope: "user",
						origin: "top-level",
						baseDir: join(dirs.agentDir, "skills", "lint-check"),
					},
				},
			],
		});
	});
});

describe("--no-extensions", () => {
	const discovered = (dirs: AgentDirs) => join(dirs.agentDir, "extensions", "status-widget.ts");
	const installStatusWidget = (dirs: AgentDirs) => {
		mkdirSync(join(dirs.agentDir, "extensions"));
		copyFileSync(join(EXAMPLES, "status-widget.ts"), discovered(dirs));
	};
	const names = async (agent: RpcAgent) =>
		((await agent.ok({ type: "get_commands" })) as { commands: { name: string; path: string }[] }).commands;

	it("without it, extensions in <agentDir>/extensions load", async () => {
		const { agent, dirs } = await startWithExtensions(harness.server, { prepare: installStatusWidget });
		expect(await names(agent)).toMatchObject([
			{
				name: "status-demo",
				path: discovered(dirs),
				sourceInfo: {
					path: discovered(dirs),
					source: "local",
					scope: "user",
					origin: "top-level",
					baseDir: join(dirs.agentDir, "extensions"),
				},
			},
		]);
	});

	it("with it, they do not: /status-demo goes to the model as text", async () => {
		const { agent } = await startWithExtensions(harness.server, {
			args: ["--no-extensions"],
			prepare: installStatusWidget,
		});
		expect(await names(agent)).toEqual([]);
		const { start } = await agent.prompt("/status-demo");
		expect(agent.since(start, "extension_ui_request")).toEqual([]);
		expect(transcript(harness.server.requests[0])).toEqual(["user: /status-demo"]);
	});

	it("-e still loads with it", async () => {
		const hello =
			'export default function (atomic) {\n\tatomic.registerCommand("hello", { handler: () => undefined });\n}\n';
		const { agent, sourcePath } = await startWithExtensions(harness.server, {
			args: ["--no-extensions"],
			sources: { "hello.ts": hello },
			prepare: installStatusWidget,
		});
		expect(await names(agent)).toEqual([
			{ name: "hello", source: "extension", path: sourcePath("hello.ts"), sourceInfo: cliPath(sourcePath("hello.ts")) },
		]);
	});
});

describe("session_start", () => {
	it("runs at start-up after ready, and again for a new session", async () => {
		const { agent, ready } = await startWithExtensions(harness.server, { fixtures: ["session-title.ts"] });
		const title = await agent.waitForEvent("extension_ui_request", (record) => record.method === "setTitle");
		expect(title).toEqual({
			type: "extension_ui_request",
			id: title.id,
			method: "setTitle",
			title: "atomic - startup",
		});
		expect(agent.records.indexOf(title)).toBeGreaterThan(agent.records.indexOf(ready));
		expect(uiFrames(agent, 0)).toHaveLength(1);

		const start = agent.mark();
		expect(await agent.ok({ type: "new_session" })).toEqual({ cancelled: false });
		expect(uiFrames(agent, start)).toEqual([
			{ type: "extension_ui_request", method: "setTitle", title: "atomic - new" },
		]);
	});
});
