import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcCommandError, type ToolApprovalRequestEvent } from "../../src/index.js";
import { ApprovalResponder } from "../../src/rpc/client/approvals.js";
import { textReply } from "../support/llm-server.js";
import { startClient, useClientHarness } from "./helpers.js";

const harness = useClientHarness();

function bashCall(id: string, command: string) {
	return { blocks: [{ type: "toolCall" as const, id, name: "bash", arguments: { command } }] };
}

function ask(extra: Record<string, unknown> = {}) {
	return { settings: { permissions: { mode: "ask", ...extra } } };
}

function resultText(messages: { role: string; content?: unknown }[]): string | undefined {
	const result = messages.find((message) => message.role === "toolResult");
	const content = result?.content as { text?: string }[] | undefined;
	return content?.map((block) => block.text ?? "").join("");
}

describe("RpcClient.onApprovalRequest", () => {
	it("hands each request to the handler and sends its decision", async () => {
		const { client, dirs } = await startClient(harness.server, ask());
		const seen: ToolApprovalRequestEvent[] = [];
		client.onApprovalRequest((request) => {
			seen.push(request);
			return "allow";
		});
		harness.server.enqueue(bashCall("c1", "echo ran > ran.txt"), textReply("done"));
		const outcome = await client.promptAndWait("go");
		expect(seen).toEqual([
			expect.objectContaining({
				type: "tool_approval_request",
				toolCallId: "c1",
				toolName: "bash",
				args: { command: "echo ran > ran.txt" },
				alwaysRule: "bash(echo *)",
			}),
		]);
		expect(existsSync(join(dirs.work, "ran.txt"))).toBe(true);
		expect(outcome.events.filter((event) => event.type === "tool_approval_resolved")).toEqual([
			{ type: "tool_approval_resolved", id: seen[0]?.id, toolCallId: "c1", decision: "allow", by: "user" },
		]);
		expect(await client.getState()).toMatchObject({ approvalMode: "ask" });
	});

	it("a deny with a message reaches the model; a throwing handler denies and is reported", async () => {
		const { client, errors } = await startClient(harness.server, ask());
		client.onApprovalRequest(async () => ({ decision: "deny", message: "not on Fridays" }));
		harness.server.enqueue(bashCall("d1", "echo 1"), textReply("ok"));
		expect(resultText((await client.promptAndWait("go")).messages)).toBe("Denied by the user: not on Fridays");

		client.onApprovalRequest(() => {
			throw new Error("handler broke");
		});
		harness.server.enqueue(bashCall("d2", "echo 2"), textReply("ok"));
		expect(resultText((await client.promptAndWait("again")).messages)).toBe("Denied by the user");
		expect(errors.map((error) => error.message)).toEqual(["handler broke"]);
	});

	it("deny_always denies the call, and the rule it adds denies the next one without asking", async () => {
		const { client } = await startClient(harness.server, ask());
		const seen: string[] = [];
		client.onApprovalRequest((request) => {
			seen.push(request.toolCallId);
			return "deny_always";
		});
		harness.server.enqueue(bashCall("n1", "rm -f a"), textReply("ok"), bashCall("n2", "rm -f b"), textReply("ok"));
		const first = await client.promptAndWait("go");
		expect(resultText(first.messages)).toBe("Denied by the user");
		expect(first.events.filter((event) => event.type === "tool_approval_resolved")).toMatchObject([
			{ toolCallId: "n1", decision: "deny", by: "user", rule: "bash(rm *)" },
		]);
		const second = await client.promptAndWait("again");
		expect(resultText(second.messages)).toBe("Denied by rule bash(rm *)");
		expect(seen).toEqual(["n1"]);
	});

	it("tells a handler still deciding that the request ended", async () => {
		const { client, errors } = await startClient(harness.server, ask({ timeoutMs: 200 }));
		let aborted: Promise<void> | undefined;
		client.onApprovalRequest(
			(_request, signal) =>
				new Promise((resolve) => {
					aborted = new Promise((done) =>
						signal.addEventListener("abort", () => {
							done();
							resolve("allow");
						}),
					);
				}),
		);
		harness.server.enqueue(bashCall("t1", "echo 1"), textReply("ok"));
		const outcome = await client.promptAndWait("go");
		await aborted;
		expect(outcome.events.filter((event) => event.type === "tool_approval_resolved")).toMatchObject([
			{ decision: "deny", by: "timeout" },
		]);
		expect(resultText(outcome.messages)).toBe("No decision within 0.2 s: denied");
		expect(errors).toEqual([]);
	});

	it("without a handler, requests wait: respondToApproval answers them", async () => {
		const { client, dirs } = await startClient(harness.server, ask());
		client.onEvent((event) => {
			if (event.type === "tool_approval_request") void client.respondToApproval(event.id, "allow_always");
		});
		harness.server.enqueue(bashCall("m1", "echo 1 > one.txt"), textReply("ok"));
		await client.promptAndWait("go");
		expect(existsSync(join(dirs.work, "one.txt"))).toBe(true);
		await expect(client.respondToApproval("nope", "allow")).rejects.toThrow(RpcCommandError);
		await expect(client.respondToApproval("nope", "allow")).rejects.toThrow(
			'No open tool approval request with id "nope" (unknown or already decided)',
		);
	});

	it("setApprovalMode changes the mode for the process", async () => {
		const { client } = await startClient(harness.server);
		expect(await client.getState()).toMatchObject({ approvalMode: "auto" });
		await client.setApprovalMode("read-only");
		expect(await client.getState()).toMatchObject({ approvalMode: "read-only" });
		harness.server.enqueue(bashCall("r1", "echo 1"), textReply("ok"));
		expect(resultText((await client.promptAndWait("go")).messages)).toBe("Denied by approval mode read-only");
	});
});

describe("ApprovalResponder", () => {
	const request: ToolApprovalRequestEvent = {
		type: "tool_approval_request",
		id: "req-1",
		toolCallId: "c",
		toolName: "bash",
		args: {},
		reason: "r",
		options: ["allow", "allow_always", "deny"],
		alwaysRule: "bash",
	};

	it("sends the answer once the handler decides; a decided request's late answer is not sent", async () => {
		const sent: [string, unknown][] = [];
		const responder = new ApprovalResponder(
			async (id, answer) => {
				sent.push([id, answer]);
			},
			(error) => {
				throw error;
			},
		);
		let decide: (value: "allow") => void = () => undefined;
		responder.setHandler(() => new Promise((resolve) => (decide = resolve)));
		responder.handle(request);
		responder.resolved("req-1");
		decide("allow");
		responder.handle({ ...request, id: "req-2" });
		decide("allow");
		await new Promise((resolve) => setImmediate(resolve));
		expect(sent).toEqual([["req-2", { decision: "allow" }]]);
	});

	it("leaves requests alone without a handler, and after the handler is removed", async () => {
		const sent: string[] = [];
		const responder = new ApprovalResponder(
			async (id) => {
				sent.push(id);
			},
			() => undefined,
		);
		responder.handle(request);
		const remove = responder.setHandler(() => "deny");
		remove();
		responder.handle(request);
		await new Promise((resolve) => setImmediate(resolve));
		expect(sent).toEqual([]);
	});
});
