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
		expect(first?.options.map((option) => option.kind)).toEqual(["allow_once", "allow_always", "reject_once"]);
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
