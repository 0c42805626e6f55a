import { existsSync } from "node:fs";
import { join } from "node:path";
import type { RequestPermissionResponse, SessionUpdate } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { textReply, toolReply } from "../support/llm-server.js";
import { useAcpHarness } from "./helpers.js";

const harness = useAcpHarness();

function finalStatus(updates: SessionUpdate[], toolCallId: string): string | undefined {
	const statuses = updates.flatMap((update) =>
		(update.sessionUpdate === "tool_call" || update.sessionUpdate === "tool_call_update") &&
		update.toolCallId === toolCallId &&
		update.status
			? [update.status]
			: [],
	);
	return statuses[statuses.length - 1];
}

function answer(optionId: string): RequestPermissionResponse {
	return { outcome: { outcome: "selected", optionId } };
}

describe("ACP permissions", () => {
	it("offers the approval modes as session modes and announces a change", async () => {
		const { client, dirs } = await harness.start({ args: ["--approval-mode", "ask"] });
		const created = await client.agent.request("session/new", { cwd: dirs.work, mcpServers: [] });
		expect(created.modes?.currentModeId).toBe("ask");
		expect(created.modes?.availableModes.map((mode) => mode.id)).toEqual(["auto", "ask", "read-only"]);
		await client.agent.request("session/set_mode", { sessionId: created.sessionId, modeId: "read-only" });
		await client.waitForUpdate(
			created.sessionId,
			(update) => update.sessionUpdate === "current_mode_update" && update.currentModeId === "read-only",
			"current_mode_update",
		);
		const bad = await client.agent.request("session/set_mode", { sessionId: created.sessionId, modeId: "yolo" }).then(
			() => "accepted",
			(error: unknown) => (error instanceof Error ? error.message : String(error)),
		);
		expect(bad).toContain('unknown mode "yolo"');
	});

	it("asks before a call in ask mode: allow once runs it, reject once fails it", async () => {
		const answers = ["allow", "deny"];
		const { client, dirs } = await harness.start({
			args: ["--approval-mode", "ask"],
			onPermission: () => answer(answers.shift() ?? "deny"),
		});
		harness.server.enqueue(
			{ blocks: [{ type: "toolCall", id: "call-a", name: "bash", arguments: { command: "echo allowed" } }] },
			{ blocks: [{ type: "toolCall", id: "call-b", name: "bash", arguments: { command: "echo refused" } }] },
			textReply("done"),
		);
		const sessionId = await client.newSession(dirs.work);
		await client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
		expect(client.permissionRequests.map((request) => request.toolCall.toolCallId)).toEqual(["call-a", "call-b"]);
		const first = client.permissionRequests[0];
		expect(first?.toolCall).toMatchObject({ title: "Run echo allowed", kind: "execute" });
		expect(first?.options.map((option) => option.kind)).toEqual([
			"allow_once",
			"allow_always",
			"reject_once",
			"reject_always",
		]);
		expect(first?.options.map((option) => option.name)).toEqual([
			"Allow once",
			"Always allow bash(echo *)",
			"Reject",
			"Always reject bash(echo *)",
		]);
		expect(finalStatus(client.updates(sessionId), "call-a")).toBe("completed");
		expect(finalStatus(client.updates(sessionId), "call-b")).toBe("failed");
	});

	it("allow always stops asking for calls the added rule covers", async () => {
		const { client, dirs } = await harness.start({
			args: ["--approval-mode", "ask"],
			onPermission: () => answer("allow_always"),
		});
		harness.server.enqueue(
			toolReply("write", { path: "a.txt", content: "a" }),
			toolReply("write", { path: "a.txt", content: "again" }),
			textReply("done"),
		);
		const sessionId = await client.newSession(dirs.work);
		await client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
		expect(client.permissionRequests.length).toBe(1);
		expect(client.permissionRequests[0]?.toolCall.content?.[0]).toMatchObject({ type: "diff", newText: "a" });
	});

	it("reject always denies the call and the rule it adds denies the next one without asking", async () => {
		const { client, dirs } = await harness.start({
			args: ["--approval-mode", "ask"],
			onPermission: (request) => {
				const option = request.options.find((item) => item.kind === "reject_always");
				return answer(option?.optionId ?? "none");
			},
		});
		harness.server.enqueue(
			{ blocks: [{ type: "toolCall", id: "call-1", name: "bash", arguments: { command: "touch first.txt" } }] },
			textReply("refused"),
			{ blocks: [{ type: "toolCall", id: "call-2", name: "bash", arguments: { command: "touch second.txt" } }] },
			textReply("refused again"),
		);
		const sessionId = await client.newSession(dirs.work);
		await client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "one" }] });
		await client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "two" }] });
		expect(client.permissionRequests.map((request) => request.toolCall.toolCallId)).toEqual(["call-1"]);
		expect(finalStatus(client.updates(sessionId), "call-1")).toBe("failed");
		expect(finalStatus(client.updates(sessionId), "call-2")).toBe("failed");
		const results = harness.server.requests.map((request) => JSON.stringify(request.body));
		expect(results[1]).toContain("Denied by the user");
		expect(results[3]).toContain("Denied by rule bash(touch *)");
		expect(existsSync(join(dirs.work, "first.txt"))).toBe(false);
		expect(existsSync(join(dirs.work, "second.txt"))).toBe(false);

		// The rule is the session's: a process that loads it later denies too, without asking.
		await client.close();
		const second = await harness.start({ dirs, args: ["--approval-mode", "ask"] });
		await second.client.agent.request("session/load", { sessionId, cwd: dirs.work, mcpServers: [] });
		harness.server.enqueue(
			{ blocks: [{ type: "toolCall", id: "call-3", name: "bash", arguments: { command: "touch third.txt" } }] },
			textReply("still refused"),
		);
		await second.client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "three" }] });
		expect(second.client.permissionRequests).toEqual([]);
		expect(finalStatus(second.client.updates(sessionId), "call-3")).toBe("failed");
		expect(JSON.stringify(harness.server.requests.at(-1)?.body)).toContain("Denied by rule bash(touch *)");
	});

	it("cancel while a permission request is open resolves it and answers the prompt with cancelled", async () => {
		let asked: () => void = () => undefined;
		const open = new Promise<void>((resolve) => {
			asked = resolve;
		});
		const { client, dirs } = await harness.start({
			args: ["--approval-mode", "ask"],
			onPermission: () => {
				asked();
				// Never answered by the user: only the cancel ends it.
				return new Promise<RequestPermissionResponse>(() => undefined);
			},
		});
		harness.server.enqueue(toolReply("bash", { command: "echo never" }), textReply("unreached"));
		const sessionId = await client.newSession(dirs.work);
		const prompt = client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
		await open;
		await client.agent.notify("session/cancel", { sessionId });
		expect((await prompt).stopReason).toBe("cancelled");
		expect(harness.server.requests.length).toBe(1);
	});
});
