import { describe, expect, it } from "vitest";
import { documentErrors, outputRecordProblems, schemaProblems, typeboxErrors } from "./schema-check.js";

const USAGE = {
	input: 10,
	output: 2,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 12,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

const MODEL = {
	id: "mock-model",
	name: "Mock Model",
	api: "anthropic-messages",
	provider: "mock",
	baseUrl: "http://127.0.0.1:1",
	reasoning: false,
	input: ["text"],
	contextWindow: 1000,
	maxTokens: 100,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
};

const STATE = {
	model: MODEL,
	thinkingLevel: "off",
	isStreaming: false,
	isCompacting: false,
	steeringMode: "one-at-a-time",
	followUpMode: "one-at-a-time",
	sessionId: "abc",
	autoCompactionEnabled: true,
	messageCount: 0,
	pendingMessageCount: 0,
	queuedMessagesPaused: false,
	approvalMode: "auto",
	sandbox: { mode: "off", network: "off", available: true, mechanism: "bubblewrap" },
};

const ENTRY = { type: "message", id: "e1", parentId: null, timestamp: "2026-01-01T00:00:00.000Z" };
const USER_ENTRY = { ...ENTRY, message: { role: "user", content: "hi", timestamp: 1 } };

function stateResponse(data: Record<string, unknown>) {
	return { id: "s", type: "response", command: "get_state", success: true, data };
}

/** The record is valid, or fails with a complaint containing `expected` from both checkers. */
function expectRejected(name: string, value: unknown, expected: string): void {
	const typebox = typeboxErrors(name, value);
	const document = documentErrors(name, value);
	expect(
		typebox.some((error) => error.includes(expected)),
		typebox.join("\n"),
	).toBe(true);
	expect(
		document.some((error) => error.includes(expected)),
		document.join("\n"),
	).toBe(true);
}

describe("the RPC schema rejects mistakes", () => {
	it("accepts a well-formed response and extra fields (additive changes)", () => {
		expect(outputRecordProblems(stateResponse(STATE))).toEqual([]);
		expect(outputRecordProblems({ ...stateResponse({ ...STATE, futureField: 1 }), alsoNew: true })).toEqual([]);
	});

	it("rejects a response whose data misses a required field", () => {
		const { sessionId: _sessionId, ...withoutId } = STATE;
		const record = stateResponse(withoutId);
		expectRejected("response.get_state", record, "sessionId");
		expect(schemaProblems("OutputRecord", record).length).toBeGreaterThan(0);
		expect(outputRecordProblems(record).some((problem) => problem.includes("sessionId"))).toBe(true);
	});

	it("rejects a command response without its data, and a wrong literal", () => {
		expectRejected("response.get_state", { type: "response", command: "get_state", success: true }, "data");
		expect(typeboxErrors("response.get_state", { ...stateResponse(STATE), success: false }).length).toBeGreaterThan(0);
		expect(typeboxErrors("response.get_state", { ...stateResponse(STATE), type: "reply" }).length).toBeGreaterThan(0);
	});

	it("rejects an error response without its error text", () => {
		expectRejected("response.error", { type: "response", command: "parse", success: false }, "error");
	});

	it("accepts a message_update with or without usage, rejects a malformed usage and an unknown delta", () => {
		const delta = { type: "text_delta", contentIndex: 0, delta: "hi" };
		expect(outputRecordProblems({ type: "message_update", assistantMessageEvent: delta, usage: USAGE })).toEqual([]);
		expect(outputRecordProblems({ type: "message_update", assistantMessageEvent: delta })).toEqual([]);
		expectRejected(
			"event.message_update",
			{ type: "message_update", assistantMessageEvent: delta, usage: {} },
			"usage",
		);
		const unknownDelta = { type: "message_update", assistantMessageEvent: { type: "text_more" }, usage: USAGE };
		expect(typeboxErrors("event.message_update", unknownDelta).length).toBeGreaterThan(0);
		expect(documentErrors("event.message_update", unknownDelta).length).toBeGreaterThan(0);
	});

	it("rejects a model that carries headers", () => {
		const record = { type: "response", command: "set_model", success: true, data: { ...MODEL, headers: { a: "b" } } };
		expect(typeboxErrors("response.set_model", record).length).toBeGreaterThan(0);
		expect(documentErrors("response.set_model", record).length).toBeGreaterThan(0);
		expect(typeboxErrors("response.set_model", { ...record, data: MODEL })).toEqual([]);
	});

	it("rejects values outside an enum and negative counts", () => {
		const update = { type: "bash_execution_update", id: "b", channel: "stdin", delta: "x" };
		expect(typeboxErrors("event.bash_execution_update", update).length).toBeGreaterThan(0);
		expect(documentErrors("event.bash_execution_update", { ...update, channel: "stdout" })).toEqual([]);
		const retry = { type: "auto_retry_end", success: true, attempt: -1 };
		expect(typeboxErrors("event.auto_retry_end", retry).length).toBeGreaterThan(0);
	});

	it("rejects an extension UI request without the fields of its method", () => {
		const select = { type: "extension_ui_request", id: "u", method: "select", title: "Pick" };
		expectRejected("event.extension_ui_request.select", select, "options");
		expect(outputRecordProblems({ ...select, options: ["a"] })).toEqual([]);
		expect(outputRecordProblems({ ...select, method: "teleport", options: ["a"] }).length).toBeGreaterThan(0);
	});

	it("checks every level of the entry tree", () => {
		const leaf = { entry: { ...USER_ENTRY, id: "e2", parentId: "e1" }, children: [] };
		const tree = { type: "response", command: "get_tree", success: true, data: { tree: [], leafId: "e2" } };
		const good = { ...tree, data: { ...tree.data, tree: [{ entry: USER_ENTRY, children: [leaf] }] } };
		expect(outputRecordProblems(good)).toEqual([]);
		const { children: _children, ...leafWithoutChildren } = leaf;
		const deep = { ...tree, data: { ...tree.data, tree: [{ entry: USER_ENTRY, children: [leafWithoutChildren] }] } };
		expectRejected("response.get_tree", deep, "children");
	});

	it("keeps entries of other programs but does not let a broken known entry pass as one", () => {
		const foreign = { type: "x-annotation", id: "f", parentId: null, timestamp: "t", note: 1 };
		expect(schemaProblems("SessionEntry", foreign)).toEqual([]);
		expect(schemaProblems("SessionEntry", USER_ENTRY)).toEqual([]);
		expect(schemaProblems("SessionEntry", ENTRY).length).toBeGreaterThan(0);
	});

	it("rejects an event type it does not define and a command with a missing field", () => {
		expect(outputRecordProblems({ type: "agent_levitated" })).toContain("no definition describes this kind of record");
		expect(schemaProblems("OutputRecord", { type: "agent_levitated" }).length).toBeGreaterThan(0);
		expectRejected("command.set_model", { type: "set_model", provider: "mock" }, "modelId");
		expect(schemaProblems("InputRecord", { type: "set_model", provider: "mock", modelId: "m" })).toEqual([]);
		expect(schemaProblems("InputRecord", { type: "extension_ui_response", id: "u", value: "a" })).toEqual([]);
	});
});
