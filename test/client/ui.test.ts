import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import type { RpcClient, UiRequest } from "../../src/index.js";
import { textReply, toolReply } from "../support/llm-server.js";
import { startClient, useClientHarness } from "./helpers.js";

const harness = useClientHarness();

const EXAMPLE = resolve("examples/extensions/confirm-dangerous-bash.ts");

const SELECT = {
	type: "extension_ui_request",
	method: "select",
	title: "Allow dangerous command?",
	options: ["Allow", "Block"],
	timeout: 10000,
};

/** Starts the example extension, lets the model call `rm -rf <work>/victim`, and waits for the whole run. */
async function dangerousRun(
	answer: ((request: UiRequest) => ReturnType<Parameters<RpcClient["onUiRequest"]>[0]>) | undefined,
) {
	const { client, dirs, errors } = await startClient(harness.server, {
		args: ["-e", EXAMPLE],
		prepare: (tree) => {
			mkdirSync(join(tree.work, "victim"));
			writeFileSync(join(tree.work, "victim", "keep.txt"), "precious\n");
		},
	});
	const victim = join(dirs.work, "victim");
	const requests: UiRequest[] = [];
	if (answer) {
		client.onUiRequest((request) => {
			requests.push(request);
			return answer(request);
		});
	}
	harness.server.enqueue(toolReply("bash", { command: `rm -rf ${victim}` }), textReply("done"));
	const outcome = await client.promptAndWait("clean up");
	const toolResult = outcome.messages.find((message) => message.role === "toolResult");
	return { victim, requests, toolResult, outcome, errors };
}

describe("extension dialogs through onUiRequest", () => {
	it("Allow runs the dangerous command", async () => {
		const { victim, requests, toolResult } = await dangerousRun((request) =>
			request.method === "select" ? { value: "Allow" } : undefined,
		);
		expect(requests).toEqual([{ ...SELECT, id: expect.any(String) }]);
		expect(existsSync(victim)).toBe(false);
		expect(toolResult).toMatchObject({ role: "toolResult", toolName: "bash", isError: false });
	});

	it("Block blocks it; the notify that follows reaches the handler too (its return is ignored)", async () => {
		const { victim, requests, toolResult } = await dangerousRun(async (request) =>
			request.method === "select" ? { value: "Block" } : { value: "ignored for a notify" },
		);
		expect(existsSync(victim)).toBe(true);
		expect(toolResult).toMatchObject({
			role: "toolResult",
			isError: true,
			content: [{ type: "text", text: "Blocked by the user" }],
		});
		expect(requests.map((request) => request.method)).toEqual(["select", "notify"]);
		expect(requests[1]).toMatchObject({
			method: "notify",
			message: `Blocked: rm -rf ${victim}`,
			notifyType: "warning",
		});
	});

	it("without a handler the dialog is answered cancelled at once", async () => {
		const started = Date.now();
		const { victim, toolResult } = await dangerousRun(undefined);
		expect(existsSync(victim)).toBe(true);
		expect(toolResult).toMatchObject({
			isError: true,
			content: [{ type: "text", text: "No answer from the user; blocked" }],
		});
		// Far below the dialog's own 10 s timeout.
		expect(Date.now() - started).toBeLessThan(8000);
	});

	it("a handler that throws cancels the dialog and reports the error", async () => {
		const { victim, toolResult, errors } = await dangerousRun(() => {
			throw new Error("handler bug");
		});
		// Once for the select, once for the notify that follows the block.
		expect(errors.map((error) => error.message)).toEqual(["handler bug", "handler bug"]);
		expect(existsSync(victim)).toBe(true);
		expect(toolResult).toMatchObject({ content: [{ type: "text", text: "No answer from the user; blocked" }] });
	});
});
