import { describe, expect, it } from "vitest";
import { emptyUsage } from "../../src/llm/cost.js";
import { IMAGE_OMITTED_TEXT, MISSING_TOOL_RESULT_TEXT, prepareMessages } from "../../src/llm/transform.js";
import type {
	AssistantMessage,
	ImageContent,
	Message,
	Model,
	StopReason,
	ToolResultMessage,
	UserMessage,
} from "../../src/llm/types.js";

const model: Model = {
	id: "target",
	name: "Target",
	api: "anthropic-messages",
	provider: "prov",
	baseUrl: "http://localhost:1",
	reasoning: true,
	input: ["text", "image"],
	contextWindow: 100_000,
	maxTokens: 1000,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
};
const textOnly: Model = { ...model, input: ["text"] };
const image: ImageContent = { type: "image", data: "AAAA", mimeType: "image/png" };

function user(content: UserMessage["content"]): UserMessage {
	return { role: "user", content, timestamp: 1 };
}

function assistant(
	content: AssistantMessage["content"],
	stopReason: StopReason = "stop",
	from: Pick<Model, "provider" | "id" | "api"> = model,
): AssistantMessage {
	return {
		role: "assistant",
		content,
		api: from.api,
		provider: from.provider,
		model: from.id,
		usage: emptyUsage(),
		stopReason,
		timestamp: 2,
	};
}

function call(id: string, name = "read") {
	return { type: "toolCall" as const, id, name, arguments: { path: id } };
}

function result(toolCallId: string, text = `result of ${toolCallId}`, toolName = "read"): ToolResultMessage {
	return { role: "toolResult", toolCallId, toolName, content: [{ type: "text", text }], isError: false, timestamp: 3 };
}

const roles = (messages: Message[]) =>
	messages.map((message) => (message.role === "toolResult" ? `toolResult:${message.toolCallId}` : message.role));

describe("prepareMessages: failed replies", () => {
	it.each([["error"], ["aborted"]] as const)(
		"drops an assistant message that ended in %s, with its results",
		(stop) => {
			const failed = assistant([{ type: "text", text: "partial" }, call("c1")], stop);
			const messages: Message[] = [
				user("hi"),
				failed,
				result("c1"),
				user("again"),
				assistant([{ type: "text", text: "ok" }]),
			];
			const prepared = prepareMessages(messages, model);
			expect(roles(prepared)).toEqual(["user", "user", "assistant"]);
			expect(prepared[2]).toEqual(messages[4]);
		},
	);

	it("returns the input unchanged (equal) when there is nothing to fix", () => {
		const messages: Message[] = [
			user("hi"),
			assistant([call("c1")], "toolUse"),
			result("c1"),
			assistant([{ type: "text", text: "done" }]),
		];
		expect(prepareMessages(messages, model)).toEqual(messages);
	});
});

describe("prepareMessages: thinking and signatures", () => {
	const other = { provider: "other", id: "other-model", api: "openai-responses" as const };
	const content: AssistantMessage["content"] = [
		{ type: "thinking", thinking: "step by step", thinkingSignature: "sig-1" },
		{ type: "thinking", thinking: "", thinkingSignature: "sig-empty" },
		{ type: "thinking", thinking: "hidden", thinkingSignature: "opaque", redacted: true },
		{ type: "text", text: "answer", textSignature: "msg_1" },
		{ type: "text", text: "plain" },
		{ ...call("c1"), thoughtSignature: "thought-sig" },
	];

	it("turns another model's thinking into text and drops signatures and redacted thinking", () => {
		const prepared = prepareMessages([user("q"), assistant(content, "toolUse", other), result("c1")], model);
		expect(prepared[1]).toEqual({
			...assistant(content, "toolUse", other),
			content: [
				{ type: "text", text: "step by step" },
				{ type: "text", text: "answer" },
				{ type: "text", text: "plain" },
				call("c1"),
			],
		});
	});

	it.each([
		["provider", { ...model, provider: "elsewhere" }],
		["model id", { ...model, id: "sibling" }],
		["api", { ...model, api: "openai-completions" as const }],
	])("treats a different %s as another model", (_, from) => {
		const prepared = prepareMessages(
			[assistant([{ type: "thinking", thinking: "t", thinkingSignature: "s" }], "stop", from)],
			model,
		);
		expect(prepared[0]?.role === "assistant" && prepared[0].content).toEqual([{ type: "text", text: "t" }]);
	});

	it("keeps the same model's thinking, signatures and redacted blocks as they are", () => {
		const messages: Message[] = [user("q"), assistant(content, "toolUse"), result("c1")];
		expect(prepareMessages(messages, model)).toEqual(messages);
	});

	it("drops an assistant message left empty by the conversion", () => {
		const redactedOnly = assistant(
			[{ type: "thinking", thinking: "x", thinkingSignature: "d", redacted: true }],
			"stop",
			other,
		);
		expect(roles(prepareMessages([user("a"), redactedOnly, user("b")], model))).toEqual(["user", "user"]);
	});
});

describe("prepareMessages: images", () => {
	it("replaces images in user messages and tool results for a text-only model", () => {
		const toolResult: ToolResultMessage = { ...result("c1"), content: [{ type: "text", text: "see" }, image] };
		const messages: Message[] = [
			user([{ type: "text", text: "look" }, image]),
			assistant([call("c1")], "toolUse"),
			toolResult,
		];
		const prepared = prepareMessages(messages, textOnly);
		expect(prepared[0]).toEqual(
			user([
				{ type: "text", text: "look" },
				{ type: "text", text: IMAGE_OMITTED_TEXT },
			]),
		);
		expect(prepared[2]).toEqual({
			...toolResult,
			content: [
				{ type: "text", text: "see" },
				{ type: "text", text: IMAGE_OMITTED_TEXT },
			],
		});
		expect(messages[0]).toEqual(user([{ type: "text", text: "look" }, image]));
	});

	it("keeps images for a model that accepts them, and string content as is", () => {
		const messages: Message[] = [user([image]), user("text")];
		expect(prepareMessages(messages, model)).toEqual(messages);
		expect(prepareMessages([user("text")], textOnly)).toEqual([user("text")]);
	});
});

describe("prepareMessages: tool calls and results", () => {
	it("normalises ids the same way for calls and results, calling the normaliser once per id", () => {
		const seen: string[] = [];
		const normalizeToolCallId = (id: string) => {
			seen.push(id);
			return id.replace(/[^a-zA-Z0-9]/g, "_");
		};
		const messages: Message[] = [
			assistant([call("call|1"), call("call|2")], "toolUse"),
			result("call|2"),
			result("call|1"),
		];
		const prepared = prepareMessages(messages, model, { normalizeToolCallId });
		expect(
			prepared[0]?.role === "assistant" && prepared[0].content.map((block) => block.type === "toolCall" && block.id),
		).toEqual(["call_1", "call_2"]);
		expect(roles(prepared)).toEqual(["assistant", "toolResult:call_2", "toolResult:call_1"]);
		expect(seen).toEqual(["call|1", "call|2"]);
	});

	it("adds a synthetic error result for a call left without one, right after its message", () => {
		const messages: Message[] = [
			assistant([call("a", "read"), call("b", "bash")], "toolUse"),
			result("a"),
			user("interrupt"),
		];
		const prepared = prepareMessages(messages, model);
		expect(roles(prepared)).toEqual(["assistant", "toolResult:a", "toolResult:b", "user"]);
		expect(prepared[2]).toMatchObject({
			role: "toolResult",
			toolCallId: "b",
			toolName: "bash",
			content: [{ type: "text", text: MISSING_TOOL_RESULT_TEXT }],
			isError: true,
		});
	});

	it("adds synthetic results before the next assistant message and at the end", () => {
		const messages: Message[] = [assistant([call("a")], "toolUse"), assistant([call("b")], "toolUse")];
		expect(roles(prepareMessages(messages, model))).toEqual(["assistant", "toolResult:a", "assistant", "toolResult:b"]);
	});

	it("drops orphaned and duplicate results", () => {
		const messages: Message[] = [
			user("q"),
			result("nobody-called-this"),
			assistant([call("a")], "toolUse"),
			result("a", "first"),
			result("a", "duplicate"),
			user("next"),
			result("a", "late"),
		];
		const prepared = prepareMessages(messages, model);
		expect(roles(prepared)).toEqual(["user", "assistant", "toolResult:a", "user"]);
		expect(prepared[2]).toEqual(result("a", "first"));
	});
});
