import { resolve } from "node:path";
import {
	type ClientCapabilities,
	CreateElicitationRequest,
	type CreateElicitationResponse,
	type RequestPermissionResponse,
	type SessionUpdate,
} from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import type { AcpTestClient } from "../support/acp-client.js";
import { type StartAcpOptions, useAcpHarness } from "./helpers.js";

const harness = useAcpHarness();

const FIXTURE = resolve("test/acp/fixtures/dialogs.ts");
const NOTICES: ClientCapabilities = { session: { notices: {} } };
const FORMS: ClientCapabilities = { ...NOTICES, elicitation: { form: {} } };

function start(options: StartAcpOptions = {}) {
	return harness.start({ capabilities: NOTICES, ...options, args: ["-e", FIXTURE, ...(options.args ?? [])] });
}

/** Runs a slash command of the fixture; resolves with the notice it ends with. */
async function run(client: AcpTestClient, sessionId: string, command: string, prefix: string): Promise<string> {
	const response = await client.agent.request("session/prompt", {
		sessionId,
		prompt: [{ type: "text", text: command }],
	});
	expect(response.stopReason).toBe("end_turn");
	return noticeTitle(await client.waitForUpdate(sessionId, (update) => isNotice(update, prefix), `notice ${prefix}`));
}

function isNotice(update: SessionUpdate, prefix: string): boolean {
	return update.sessionUpdate === "notice" && update.title.startsWith(prefix);
}

function noticeTitle(update: SessionUpdate): string {
	return update.sessionUpdate === "notice" ? update.title : "";
}

function selected(optionId: string): RequestPermissionResponse {
	return { outcome: { outcome: "selected", optionId } };
}

/** The tool call updates Atomic sent for the dialog with this tool call id. */
function dialogCall(updates: SessionUpdate[], toolCallId: string) {
	return updates.filter(
		(update) =>
			(update.sessionUpdate === "tool_call" || update.sessionUpdate === "tool_call_update") &&
			update.toolCallId === toolCallId,
	);
}

describe("extension dialogs without form elicitation", () => {
	it("select is a permission request with one option per choice; the chosen one is the answer", async () => {
		const { client, dirs } = await start({
			onPermission: (request) => selected(request.options[1]?.optionId ?? "none"),
		});
		const sessionId = await client.newSession(dirs.work);
		expect(await run(client, sessionId, "/choose", "picked=")).toBe("picked=green");
		const [request] = client.permissionRequests;
		expect(request?.toolCall).toMatchObject({ title: "Pick a color", kind: "other" });
		expect(request?.options.map((option) => option.name)).toEqual(["red", "green", "blue"]);
		// The editor's conversation shows the dialog as a call that completed with the answer.
		const updates = dialogCall(client.updates(sessionId), request?.toolCall.toolCallId ?? "");
		expect(updates[0]).toMatchObject({ sessionUpdate: "tool_call", status: "pending", title: "Pick a color" });
		expect(updates.at(-1)).toMatchObject({
			status: "completed",
			content: [{ type: "content", content: { type: "text", text: "green" } }],
		});
	});

	it("confirm is a permission request with Yes and No", async () => {
		const answers = ["yes", "no"];
		const { client, dirs } = await start({ onPermission: () => selected(answers.shift() ?? "none") });
		const sessionId = await client.newSession(dirs.work);
		expect(await run(client, sessionId, "/proceed", "confirmed=")).toBe("confirmed=true");
		const request = client.permissionRequests[0];
		expect(request?.options).toEqual([
			{ optionId: "yes", name: "Yes", kind: "allow_once" },
			{ optionId: "no", name: "No", kind: "reject_once" },
		]);
		const shown = dialogCall(client.updates(sessionId), request?.toolCall.toolCallId ?? "")[0];
		expect(shown).toMatchObject({
			title: "Proceed?",
			content: [{ type: "content", content: { type: "text", text: "The command waits for this" } }],
		});
		await client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/proceed" }] });
		await client.waitForUpdate(sessionId, (update) => isNotice(update, "confirmed=false"), "confirmed=false");
		expect(client.permissionRequests).toHaveLength(2);
	});

	it("input and editor resolve with nothing at once: the client is not asked", async () => {
		const elicitations: CreateElicitationRequest[] = [];
		const { client, dirs } = await start({
			onElicitation: (request) => {
				elicitations.push(request);
				return { action: "cancel" };
			},
		});
		const sessionId = await client.newSession(dirs.work);
		expect(await run(client, sessionId, "/write-down", "input=")).toBe("input=null editor=null");
		expect(client.permissionRequests).toEqual([]);
		expect(elicitations).toEqual([]);
	});

	it("session/cancel dismisses an open dialog: it resolves with its default and the prompt is cancelled", async () => {
		let asked: () => void = () => undefined;
		const open = new Promise<void>((resolve) => {
			asked = resolve;
		});
		const { client, dirs } = await start({
			onPermission: () => {
				if (client.permissionRequests.length > 1) return selected("yes");
				asked();
				// Never answered by the user: only the cancel ends it.
				return new Promise<RequestPermissionResponse>(() => undefined);
			},
		});
		const sessionId = await client.newSession(dirs.work);
		const prompt = client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/proceed" }] });
		await open;
		await client.agent.notify("session/cancel", { sessionId });
		expect((await prompt).stopReason).toBe("cancelled");
		await client.waitForUpdate(sessionId, (update) => isNotice(update, "confirmed=false"), "confirmed=false");
		const toolCallId = client.permissionRequests[0]?.toolCall.toolCallId ?? "";
		expect(dialogCall(client.updates(sessionId), toolCallId).at(-1)).toMatchObject({ status: "failed" });
		// The session goes on.
		const next = await client.agent.request("session/prompt", {
			sessionId,
			prompt: [{ type: "text", text: "/proceed" }],
		});
		expect(next.stopReason).toBe("end_turn");
		await client.waitForUpdate(sessionId, (update) => isNotice(update, "confirmed=true"), "confirmed=true");
	});
});

/** The one field of a form elicitation. */
function formField(request: CreateElicitationRequest) {
	return CreateElicitationRequest.isForm(request) ? request.requestedSchema.properties?.answer : undefined;
}

describe("extension dialogs with form elicitation", () => {
	function answerForm(request: CreateElicitationRequest): CreateElicitationResponse {
		const field = formField(request);
		const choices: unknown = field?.type === "string" ? field.enum : undefined;
		if (Array.isArray(choices) && typeof choices[2] === "string") return accept(choices[2]);
		if (field?.type === "boolean") return accept(true);
		if (field?.type === "string" && field.title === "Your name") return accept("Ada");
		if (field?.type === "string" && field.default !== undefined) return accept(`${field.default}, edited`);
		return { action: "decline" };
	}

	function accept(answer: string | boolean | undefined): CreateElicitationResponse {
		return answer === undefined ? { action: "decline" } : { action: "accept", content: { answer } };
	}

	it("every dialog is a form with one field; the accepted value is the answer", async () => {
		const forms: CreateElicitationRequest[] = [];
		const { client, dirs } = await start({
			capabilities: FORMS,
			onElicitation: (request) => {
				forms.push(request);
				return answerForm(request);
			},
		});
		const sessionId = await client.newSession(dirs.work);
		expect(await run(client, sessionId, "/choose", "picked=")).toBe("picked=blue");
		expect(await run(client, sessionId, "/proceed", "confirmed=")).toBe("confirmed=true");
		expect(await run(client, sessionId, "/write-down", "input=")).toBe('input="Ada" editor="draft, edited"');
		expect(client.permissionRequests).toEqual([]);
		expect(forms.map(formField)).toEqual([
			{ type: "string", title: "Pick a color", enum: ["red", "green", "blue"] },
			{ type: "boolean", title: "Proceed?", default: false },
			{ type: "string", title: "Your name", description: "a name" },
			{ type: "string", title: "Notes", default: "draft" },
		]);
		expect(forms.every((form) => "sessionId" in form && form.sessionId === sessionId)).toBe(true);
	});

	it("a declined form is a dismissed dialog", async () => {
		const { client, dirs } = await start({ capabilities: FORMS, onElicitation: () => ({ action: "decline" }) });
		const sessionId = await client.newSession(dirs.work);
		expect(await run(client, sessionId, "/choose", "picked=")).toBe("picked=(none)");
		expect(await run(client, sessionId, "/write-down", "input=")).toBe("input=null editor=null");
	});

	it("session/cancel dismisses an open form", async () => {
		let asked: () => void = () => undefined;
		const open = new Promise<void>((resolve) => {
			asked = resolve;
		});
		const { client, dirs } = await start({
			capabilities: FORMS,
			onElicitation: () => {
				asked();
				return new Promise<CreateElicitationResponse>(() => undefined);
			},
		});
		const sessionId = await client.newSession(dirs.work);
		const prompt = client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/choose" }] });
		await open;
		await client.agent.notify("session/cancel", { sessionId });
		expect((await prompt).stopReason).toBe("cancelled");
		await client.waitForUpdate(sessionId, (update) => isNotice(update, "picked=(none)"), "picked=(none)");
	});
});
