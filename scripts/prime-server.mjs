// A loopback Anthropic Messages server for the code cache's prompt run (compile-cache.mjs): a
// request that carries no tool result gets a streamed bash tool call, one that does gets a short
// streamed text reply. Nothing leaves the machine.
import { createServer } from "node:http";

const PRIME_COMMAND = "echo primed";
/** The text reply after the tool result, streamed a word at a time. */
export const PRIME_REPLY = "It printed primed.";

function message(id) {
	return {
		id,
		type: "message",
		role: "assistant",
		model: "prime",
		content: [],
		stop_reason: null,
		stop_sequence: null,
		usage: { input_tokens: 1, output_tokens: 1 },
	};
}

function toolCallEvents() {
	const input = JSON.stringify({ command: PRIME_COMMAND });
	return [
		{ type: "message_start", message: message("msg_prime_tool") },
		{ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
		{ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Running it." } },
		{ type: "content_block_stop", index: 0 },
		{
			type: "content_block_start",
			index: 1,
			content_block: { type: "tool_use", id: "toolu_prime", name: "bash", input: {} },
		},
		{ type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: input.slice(0, 8) } },
		{ type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: input.slice(8) } },
		{ type: "content_block_stop", index: 1 },
		{ type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 9 } },
		{ type: "message_stop" },
	];
}

function textEvents() {
	return [
		{ type: "message_start", message: message("msg_prime_text") },
		{ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
		...PRIME_REPLY.split(/(?<= )/).map((text) => ({
			type: "content_block_delta",
			index: 0,
			delta: { type: "text_delta", text },
		})),
		{ type: "content_block_stop", index: 0 },
		{ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 3 } },
		{ type: "message_stop" },
	];
}

/** Starts the server on a free loopback port: { baseUrl, close() }. */
export async function startPrimeServer() {
	const server = createServer((request, response) => {
		let body = "";
		request.setEncoding("utf8");
		request.on("data", (text) => {
			body += text;
		});
		request.on("end", () => {
			const events = body.includes('"tool_result"') ? textEvents() : toolCallEvents();
			response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
			for (const event of events) response.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
			response.end();
		});
	});
	await new Promise((resolve, reject) => {
		server.once("error", reject);
		server.listen(0, "127.0.0.1", resolve);
	});
	const address = server.address();
	if (!address || typeof address !== "object") throw new Error("the prime server has no port");
	return {
		baseUrl: `http://127.0.0.1:${address.port}`,
		close: () => {
			server.closeAllConnections();
			return new Promise((resolve) => server.close(() => resolve()));
		},
	};
}
