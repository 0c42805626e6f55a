import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { transcript } from "../rpc/helpers.js";
import { textReply, toolReply } from "../support/llm-server.js";
import { useAcpHarness } from "./helpers.js";

const harness = useAcpHarness();

describe("ACP sessions", () => {
	it("lists stored sessions, and loads one in a fresh process replaying the whole branch before answering", async () => {
		harness.server.enqueue(
			{
				blocks: [
					{ type: "thinking", text: "pondering" },
					{ type: "text", text: "Reading it." },
				],
			},
			toolReply("ls", { path: "." }),
			textReply("All done."),
		);
		const first = await harness.start({ args: ["--model", "mock/mock-reasoner", "--thinking", "high"] });
		const sessionId = await first.client.newSession(first.dirs.work);
		await first.client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "first ask" }] });
		await first.client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "second ask" }] });
		expect(await first.client.close()).toMatchObject({ code: 0 });

		const second = await harness.start({ dirs: first.dirs, args: ["--model", "mock/mock-reasoner"] });
		const listed = await second.client.agent.request("session/list", { cwd: first.dirs.work });
		expect(listed.sessions).toEqual([
			expect.objectContaining({ sessionId, cwd: first.dirs.work, title: "first ask", updatedAt: expect.any(String) }),
		]);
		const all = await second.client.agent.request("session/list", {});
		expect(all.sessions.map((session) => session.sessionId)).toEqual([sessionId]);

		const loaded = await second.client.agent.request("session/load", {
			sessionId,
			cwd: first.dirs.work,
			mcpServers: [],
		});
		// Every replayed update arrived before the response.
		const replay = second.client.updates(sessionId);
		expect(second.client.text(sessionId, "user_message_chunk")).toBe("first asksecond ask");
		expect(second.client.text(sessionId, "agent_thought_chunk")).toBe("pondering");
		expect(second.client.text(sessionId, "agent_message_chunk")).toBe("Reading it.All done.");
		const finished = replay.find(
			(update) => update.sessionUpdate === "tool_call_update" && update.status === "completed",
		);
		expect(finished).toBeDefined();
		const call = replay.find((update) => update.sessionUpdate === "tool_call");
		expect(call).toMatchObject({ kind: "read", title: "List ." });
		expect(loaded.configOptions?.map((option) => option.id)).toEqual(["model", "thinking", "sandbox"]);

		// The loaded session goes on where it was.
		harness.server.enqueue(textReply("continued"));
		await second.client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "third ask" }] });
		const last = harness.server.requests[harness.server.requests.length - 1];
		expect(transcript(last)[0]).toBe("user: first ask");
		expect(transcript(last).at(-1)).toBe("user: third ask");
	});

	it("resumes a stored session without replay, and close ends it", async () => {
		harness.server.enqueue(textReply("stored"));
		const first = await harness.start();
		const sessionId = await first.client.newSession(first.dirs.work);
		await first.client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "keep me" }] });
		await first.client.close();

		const second = await harness.start({ dirs: first.dirs });
		await second.client.agent.request("session/resume", { sessionId, cwd: first.dirs.work });
		expect(second.client.text(sessionId, "user_message_chunk")).toBe("");
		await second.client.agent.request("session/close", { sessionId });
		const after = await second.client.agent
			.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "gone?" }] })
			.then(
				() => "answered",
				(error: unknown) => (error instanceof Error ? error.message : String(error)),
			);
		expect(after).toBe("Resource not found");
	});

	it("runs two sessions at once, each in its own directory with its own updates", async () => {
		harness.server.onRequest((request) => {
			const which = transcript(request).join("\n").includes("alpha") ? "alpha" : "beta";
			return { blocks: [{ type: "text", text: `reply to ${which}`, chunks: 4 }], delayMs: 30 };
		});
		const { client, dirs } = await harness.start();
		const other = join(dirs.root, "other");
		mkdirSync(other);
		const [a, b] = await Promise.all([client.newSession(dirs.work), client.newSession(other)]);
		expect(a).not.toBe(b);
		const [ra, rb] = await Promise.all([
			client.agent.request("session/prompt", { sessionId: a, prompt: [{ type: "text", text: "alpha" }] }),
			client.agent.request("session/prompt", { sessionId: b, prompt: [{ type: "text", text: "beta" }] }),
		]);
		expect([ra.stopReason, rb.stopReason]).toEqual(["end_turn", "end_turn"]);
		expect(client.text(a, "agent_message_chunk")).toBe("reply to alpha");
		expect(client.text(b, "agent_message_chunk")).toBe("reply to beta");
		const systems = harness.server.requests.map((request) => JSON.stringify(request.body));
		expect(systems.some((body) => body.includes(dirs.work))).toBe(true);
		expect(systems.some((body) => body.includes(other))).toBe(true);
	});

	it("offers model and thinking as config options and announces changes", async () => {
		const { client, dirs } = await harness.start();
		const created = await client.agent.request("session/new", { cwd: dirs.work, mcpServers: [] });
		const model = created.configOptions?.find((option) => option.id === "model");
		expect(model).toMatchObject({ type: "select", category: "model", currentValue: "mock/mock-model" });
		expect(created.configOptions?.some((option) => option.id === "thinking")).toBe(false);
		const changed = await client.agent.request("session/set_config_option", {
			sessionId: created.sessionId,
			configId: "model",
			value: "mock/mock-reasoner",
		});
		const thinking = changed.configOptions.find((option) => option.id === "thinking");
		expect(thinking).toMatchObject({ category: "thought_level" });
		await client.agent.request("session/set_config_option", {
			sessionId: created.sessionId,
			configId: "thinking",
			value: "low",
		});
		const update = await client.waitForUpdate(
			created.sessionId,
			(item) =>
				item.sessionUpdate === "config_option_update" &&
				item.configOptions.some((option) => option.id === "thinking" && option.currentValue === "low"),
			"config_option_update",
		);
		expect(update.sessionUpdate).toBe("config_option_update");
		harness.server.enqueue(textReply("ok"));
		await client.agent.request("session/prompt", {
			sessionId: created.sessionId,
			prompt: [{ type: "text", text: "hi" }],
		});
		expect(JSON.stringify(harness.server.requests[0]?.body)).toContain("mock-reasoner");
	});

	it("offers the sandbox mode as a config option and refuses an unknown mode", async () => {
		const { client, dirs } = await harness.start();
		const created = await client.agent.request("session/new", { cwd: dirs.work, mcpServers: [] });
		expect(created.configOptions?.find((option) => option.id === "sandbox")).toMatchObject({
			type: "select",
			currentValue: "off",
		});
		const changed = await client.agent.request("session/set_config_option", {
			sessionId: created.sessionId,
			configId: "sandbox",
			value: "read-only",
		});
		expect(changed.configOptions.find((option) => option.id === "sandbox")).toMatchObject({
			currentValue: "read-only",
		});
		await expect(
			client.agent.request("session/set_config_option", {
				sessionId: created.sessionId,
				configId: "sandbox",
				value: "everything",
			}),
		).rejects.toThrow(/sandbox mode "everything" is not one of: off, read-only, workspace-write/);
	});

	it("offers the automatic compaction and retry switches to clients that show boolean options", async () => {
		const plain = await harness.start();
		const plainSession = await plain.client.agent.request("session/new", { cwd: plain.dirs.work, mcpServers: [] });
		expect(plainSession.configOptions?.map((option) => option.id)).toEqual(["model", "sandbox"]);
		await expect(
			plain.client.agent.request("session/set_config_option", {
				sessionId: plainSession.sessionId,
				configId: "auto_retry",
				type: "boolean",
				value: false,
			}),
		).rejects.toThrow(/unknown config option "auto_retry" \(known: model, thinking, sandbox\)/);

		const { client, dirs } = await harness.start({ capabilities: { session: { configOptions: { boolean: {} } } } });
		const created = await client.agent.request("session/new", { cwd: dirs.work, mcpServers: [] });
		expect(created.configOptions?.filter((option) => option.type === "boolean")).toEqual([
			expect.objectContaining({ id: "auto_compaction", currentValue: true }),
			expect.objectContaining({ id: "auto_retry", currentValue: true }),
		]);
		const changed = await client.agent.request("session/set_config_option", {
			sessionId: created.sessionId,
			configId: "auto_compaction",
			type: "boolean",
			value: false,
		});
		expect(changed.configOptions.find((option) => option.id === "auto_compaction")).toMatchObject({
			currentValue: false,
		});
		const retry = await client.agent.request("session/set_config_option", {
			sessionId: created.sessionId,
			configId: "auto_retry",
			type: "boolean",
			value: false,
		});
		expect(retry.configOptions.find((option) => option.id === "auto_retry")).toMatchObject({ currentValue: false });
		await expect(
			client.agent.request("session/set_config_option", {
				sessionId: created.sessionId,
				configId: "auto_retry",
				value: "off",
			}),
		).rejects.toThrow(/"auto_retry" takes a boolean/);
	});

	it("advertises prompt templates and skills as commands, and runs a slash command", async () => {
		const { client, dirs } = await harness.start({
			prepare: (prepared) => {
				mkdirSync(join(prepared.agentDir, "prompts"), { recursive: true });
				writeFileSync(
					join(prepared.agentDir, "prompts", "review.md"),
					"---\ndescription: Review the code\n---\nReview this carefully: $ARGUMENTS",
				);
			},
		});
		const sessionId = await client.newSession(dirs.work);
		const update = await client.waitForUpdate(
			sessionId,
			(item) => item.sessionUpdate === "available_commands_update",
			"available_commands_update",
		);
		expect(update).toMatchObject({
			availableCommands: [{ name: "review", description: "Review the code", input: { hint: "arguments" } }],
		});
		harness.server.enqueue(textReply("reviewed"));
		await client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/review src/app.ts" }] });
		expect(transcript(harness.server.requests[0])).toEqual(["user: Review this carefully: src/app.ts"]);
	});
});
