import type { NormalizedBlock, NormalizedReply } from "../llm-server.js";
import { sse, type Wire } from "./index.js";

const STOP_REASONS: Record<NormalizedReply["stopReason"], string> = {
	stop: "end_turn",
	length: "max_tokens",
	toolUse: "tool_use",
};

const ERROR_TYPES: Record<number, string> = {
	400: "invalid_request_error",
	401: "authentication_error",
	403: "permission_error",
	404: "not_found_error",
	413: "request_too_large",
	429: "rate_limit_error",
	500: "api_error",
	529: "overloaded_error",
};

let messageCounter = 0;

/** One Anthropic SSE frame: the event name repeats the data's `type`, as the API sends it. */
function event(data: { type: string } & Record<string, unknown>): string {
	return sse(data, data.type);
}

function modelOf(requestBody: unknown): string {
	if (typeof requestBody === "object" && requestBody !== null && "model" in requestBody) {
		const model = (requestBody as { model: unknown }).model;
		if (typeof model === "string") return model;
	}
	return "claude-test";
}

function blockFrames(block: NormalizedBlock, index: number): string[] {
	const frames: string[] = [];
	if (block.type === "text") {
		frames.push(event({ type: "content_block_start", index, content_block: { type: "text", text: "" } }));
		for (const text of block.pieces) {
			frames.push(event({ type: "content_block_delta", index, delta: { type: "text_delta", text } }));
		}
	} else if (block.type === "thinking" && block.redacted) {
		frames.push(
			event({
				type: "content_block_start",
				index,
				content_block: { type: "redacted_thinking", data: block.signature },
			}),
		);
	} else if (block.type === "thinking") {
		frames.push(
			event({ type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } }),
		);
		for (const thinking of block.pieces) {
			frames.push(event({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking } }));
		}
		frames.push(
			event({ type: "content_block_delta", index, delta: { type: "signature_delta", signature: block.signature } }),
		);
	} else {
		frames.push(
			event({
				type: "content_block_start",
				index,
				content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
			}),
		);
		for (const partial_json of block.pieces) {
			frames.push(event({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } }));
		}
	}
	frames.push(event({ type: "content_block_stop", index }));
	return frames;
}

/** The Anthropic Messages API streaming format (`event: <type>` + `data: <json>` per frame). */
export const anthropicWire: Wire = {
	frames(reply, requestBody) {
		const usage = reply.usage;
		const frames = [
			event({
				type: "message_start",
				message: {
					id: `msg_test_${++messageCounter}`,
					type: "message",
					role: "assistant",
					model: modelOf(requestBody),
					content: [],
					stop_reason: null,
					stop_sequence: null,
					usage: {
						input_tokens: usage.input,
						cache_creation_input_tokens: usage.cacheWrite,
						cache_read_input_tokens: usage.cacheRead,
						output_tokens: 1,
					},
				},
			}),
			event({ type: "ping" }),
		];
		reply.blocks.forEach((block, index) => {
			frames.push(...blockFrames(block, index));
		});
		frames.push(
			event({
				type: "message_delta",
				delta: { stop_reason: STOP_REASONS[reply.stopReason], stop_sequence: null },
				usage: { output_tokens: usage.output },
			}),
			event({ type: "message_stop" }),
		);
		return frames;
	},
	errorBody(status, message) {
		const type = ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
		return { type: "error", error: { type, message } };
	},
};
