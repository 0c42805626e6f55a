/**
 * Reasoning sent back to servers that need it (`compat.sendReasoning`): DeepSeek's thinking mode
 * with tool calls, Kimi's thinking models, GLM's preserved thinking. The reply is streamed as the
 * server documents it; the next request body is what the server receives.
 */
import { describe, expect, it } from "vitest";
import { streamModel } from "../../src/llm/registry.js";
import type { AssistantMessage, Message, Model, ModelCompat, ToolResultMessage } from "../../src/llm/types.js";
import { testModel } from "../support/models.js";
import { chunk, DONE, emptyChunk, toolDelta, usage } from "./completions-fixtures.js";
import { requestBody, useLlmServer } from "./openai-test-helpers.js";

const ctx = useLlmServer();

const question: Message = { role: "user", content: "What is the weather in Hangzhou tomorrow?", timestamp: 1 };

/** DeepSeek's thinking mode: reasoning_content first, then the tool call, finish_reason tool_calls. */
const DEEPSEEK_TOOL_TURN = [
	chunk({ role: "assistant", content: null, reasoning_content: "" }),
	chunk({ reasoning_content: "I need the date first, " }),
	chunk({ reasoning_content: "then the weather." }),
	chunk({ tool_calls: [toolDelta(0, { id: "call_00_date", name: "get_date", arguments: "" })] }),
	chunk({ tool_calls: [toolDelta(0, { arguments: "{}" })] }),
	chunk({}, { finish: "tool_calls" }),
	emptyChunk({ usage: usage(120, 40, { completion_tokens_details: { reasoning_tokens: 25 } }) }),
	DONE,
];

function deepseek(compat: ModelCompat = {}): Model {
	return testModel(ctx.server, "openai-completions", {
		provider: "deepseek",
		id: "deepseek-v4",
		reasoning: true,
		compat,
	});
}

async function toolTurn(model: Model): Promise<AssistantMessage> {
	ctx.server.enqueue({ raw: DEEPSEEK_TOOL_TURN });
	const reply = await streamModel(model, { messages: [question] }, { reasoning: "high" }).result();
	expect(reply.stopReason).toBe("toolUse");
	expect(reply.content).toEqual([
		{ type: "thinking", thinking: "I need the date first, then the weather.", thinkingSignature: "reasoning_content" },
		{ type: "toolCall", id: "call_00_date", name: "get_date", arguments: {} },
	]);
	expect(reply.usage.output).toBe(40);
	return reply;
}

function result(toolCallId: string, text: string): ToolResultMessage {
	return {
		role: "toolResult",
		toolCallId,
		toolName: "get_date",
		content: [{ type: "text", text }],
		isError: false,
		timestamp: 3,
	};
}

function finalAnswer(model: Model): AssistantMessage {
	return {
		role: "assistant",
		content: [
			{ type: "thinking", thinking: "Tomorrow is sunny.", thinkingSignature: "reasoning_content" },
			{ type: "text", text: "Sunny." },
		],
		api: model.api,
		provider: model.provider,
		model: model.id,
		usage: {
			input: 0,
			output: 0,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: 0,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		},
		stopReason: "stop",
		timestamp: 4,
	};
}

/** The assistant messages of request `index`. */
function sentAssistants(index: number): Record<string, unknown>[] {
	const messages = requestBody(ctx.server, index).messages as Record<string, unknown>[];
	return messages.filter((message) => message.role === "assistant");
}

describe("sending reasoning back", () => {
	it("sends the tool loop's reasoning_content back with the tool call (sendReasoning: tool-loop)", async () => {
		const model = deepseek({ sendReasoning: "tool-loop" });
		const reply = await toolTurn(model);
		await streamModel(model, { messages: [question, reply, result("call_00_date", "2025-12-02")] }).result();
		expect(sentAssistants(1)).toEqual([
			{
				role: "assistant",
				content: null,
				reasoning_content: "I need the date first, then the weather.",
				tool_calls: [{ id: "call_00_date", type: "function", function: { name: "get_date", arguments: "{}" } }],
			},
		]);
	});

	it("stops sending it once a new user message starts another turn (tool-loop)", async () => {
		const model = deepseek({ sendReasoning: "tool-loop" });
		const reply = await toolTurn(model);
		const next: Message = { role: "user", content: "And the day after?", timestamp: 5 };
		await streamModel(model, {
			messages: [question, reply, result("call_00_date", "2025-12-02"), finalAnswer(model), next],
		}).result();
		expect(sentAssistants(1).map((message) => "reasoning_content" in message)).toEqual([false, false]);
	});

	it("keeps sending the reasoning of every reply of a turn that called tools (tool-turns, DeepSeek V4, Kimi)", async () => {
		const model = deepseek({ sendReasoning: "tool-turns" });
		const reply = await toolTurn(model);
		const plain: AssistantMessage = { ...finalAnswer(model), timestamp: 7 };
		const next: Message = { role: "user", content: "Thanks", timestamp: 6 };
		const later: Message = { role: "user", content: "Bye", timestamp: 8 };
		await streamModel(model, {
			messages: [question, reply, result("call_00_date", "2025-12-02"), finalAnswer(model), next, plain, later],
		}).result();
		expect(sentAssistants(1).map((message) => message.reasoning_content)).toEqual([
			"I need the date first, then the weather.",
			"Tomorrow is sunny.",
			// The turn after "Thanks" called no tools: its reasoning stays behind.
			undefined,
		]);
	});

	it("sends the reasoning back in the field it arrived in (sendReasoning: always, OpenRouter's `reasoning`)", async () => {
		const model = deepseek({ sendReasoning: "always" });
		ctx.server.enqueue({
			raw: [
				chunk({ role: "assistant", reasoning: "Short thought." }),
				chunk({ content: "Hi!" }),
				chunk({}, { finish: "stop" }),
				DONE,
			],
		});
		const reply = await streamModel(model, { messages: [question] }).result();
		await streamModel(model, {
			messages: [question, reply, { role: "user", content: "Again", timestamp: 9 }],
		}).result();
		expect(sentAssistants(1)).toEqual([{ role: "assistant", content: "Hi!", reasoning: "Short thought." }]);
	});

	it("sends no reasoning back without the setting (the default: OpenAI and most servers reject or ignore it)", async () => {
		const model = deepseek();
		const reply = await toolTurn(model);
		await streamModel(model, { messages: [question, reply, result("call_00_date", "2025-12-02")] }).result();
		expect(sentAssistants(1)[0]).not.toHaveProperty("reasoning_content");
	});

	it("never sends another model's reasoning as reasoning", async () => {
		const model = deepseek({ sendReasoning: "always" });
		const reply = await toolTurn(model);
		const other = { ...model, id: "another-model" };
		await streamModel(other, { messages: [question, reply, result("call_00_date", "2025-12-02")] }).result();
		expect(sentAssistants(1)[0]).not.toHaveProperty("reasoning_content");
	});
});
