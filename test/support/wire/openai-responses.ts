import type { NormalizedBlock, NormalizedReply } from "../llm-server.js";
import { sse, type Wire } from "./index.js";
import { modelOf, openaiErrorBody } from "./openai-completions.js";

type Event = Record<string, unknown> & { type: string };

/**
 * OpenAI Responses streaming: `event: <type>` / `data: {type, sequence_number, ...}` frames, from
 * response.created to response.completed (response.incomplete when the reply stopped at the token
 * limit). Reasoning is a reasoning item whose summary streams as summary_text deltas (a thinking
 * text with blank lines becomes one summary part per paragraph) and whose output_item.done carries
 * the block's signature as encrypted_content; text is a message item; each tool call is a
 * function_call item with call id `call_...` and item id `fc_...`.
 */
export const openaiResponsesWire: Wire = {
	frames(reply, requestBody) {
		const events: Event[] = [];
		const response = {
			id: "resp_test",
			object: "response",
			created_at: 1_700_000_000,
			model: modelOf(requestBody),
			status: "in_progress",
			output: [] as unknown[],
			error: null,
			incomplete_details: null,
			usage: null,
		};
		events.push({ type: "response.created", response: { ...response } });
		events.push({ type: "response.in_progress", response: { ...response } });
		reply.blocks.forEach((block, outputIndex) => {
			const item = blockEvents(block, outputIndex, events);
			response.output.push(item);
		});
		const length = reply.stopReason === "length";
		events.push({
			type: length ? "response.incomplete" : "response.completed",
			response: {
				...response,
				status: length ? "incomplete" : "completed",
				incomplete_details: length ? { reason: "max_output_tokens" } : null,
				usage: usageOf(reply),
			},
		});
		return events.map((event, sequence) => sse({ ...event, sequence_number: sequence }, event.type));
	},
	errorBody: openaiErrorBody,
};

/** Appends the events of one output item and returns the finished item. */
function blockEvents(block: Required<NormalizedBlock>, outputIndex: number, events: Event[]): unknown {
	if (block.type === "thinking") {
		const id = `rs_${outputIndex}`;
		events.push({ type: "response.output_item.added", output_index: outputIndex, item: reasoningItem(id, []) });
		const paragraphs = block.text.split("\n\n");
		const parts = paragraphs.length > 1 ? paragraphs.map((text) => [text]) : [block.pieces];
		parts.forEach((pieces, summaryIndex) => {
			const text = pieces.join("");
			const at = { item_id: id, output_index: outputIndex, summary_index: summaryIndex };
			const part = { type: "summary_text", text };
			events.push({ type: "response.reasoning_summary_part.added", ...at, part: { ...part, text: "" } });
			for (const delta of pieces) events.push({ type: "response.reasoning_summary_text.delta", ...at, delta });
			events.push({ type: "response.reasoning_summary_text.done", ...at, text });
			events.push({ type: "response.reasoning_summary_part.done", ...at, part });
		});
		const summary = parts.map((pieces) => ({ type: "summary_text", text: pieces.join("") }));
		const item = { ...reasoningItem(id, summary), encrypted_content: block.signature };
		events.push({ type: "response.output_item.done", output_index: outputIndex, item });
		return item;
	}
	if (block.type === "text") {
		const id = `msg_${outputIndex}`;
		const at = { item_id: id, output_index: outputIndex, content_index: 0 };
		const part = { type: "output_text", text: block.text, annotations: [] };
		events.push({
			type: "response.output_item.added",
			output_index: outputIndex,
			item: messageItem(id, "in_progress", []),
		});
		events.push({ type: "response.content_part.added", ...at, part: { ...part, text: "" } });
		for (const delta of block.pieces) events.push({ type: "response.output_text.delta", ...at, delta, logprobs: [] });
		events.push({ type: "response.output_text.done", ...at, text: block.text, logprobs: [] });
		events.push({ type: "response.content_part.done", ...at, part });
		const item = messageItem(id, "completed", [part]);
		events.push({ type: "response.output_item.done", output_index: outputIndex, item });
		return item;
	}
	const id = `fc_${block.id.replace(/^call_/, "")}`;
	const json = block.pieces.join("");
	const callItem = (status: string, args: string) => ({
		id,
		type: "function_call",
		status,
		call_id: block.id,
		name: block.name,
		arguments: args,
	});
	events.push({ type: "response.output_item.added", output_index: outputIndex, item: callItem("in_progress", "") });
	for (const delta of block.pieces) {
		events.push({ type: "response.function_call_arguments.delta", item_id: id, output_index: outputIndex, delta });
	}
	events.push({
		type: "response.function_call_arguments.done",
		item_id: id,
		output_index: outputIndex,
		arguments: json,
	});
	const item = callItem("completed", json);
	events.push({ type: "response.output_item.done", output_index: outputIndex, item });
	return item;
}

function reasoningItem(id: string, summary: unknown[]) {
	return { id, type: "reasoning", summary };
}

function messageItem(id: string, status: string, content: unknown[]) {
	return { id, type: "message", role: "assistant", status, content };
}

function usageOf(reply: NormalizedReply) {
	const input = reply.usage.input + reply.usage.cacheRead;
	return {
		input_tokens: input,
		input_tokens_details: { cached_tokens: reply.usage.cacheRead },
		output_tokens: reply.usage.output,
		output_tokens_details: { reasoning_tokens: 0 },
		total_tokens: input + reply.usage.output,
	};
}
