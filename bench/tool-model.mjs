// A loopback model server (Anthropic Messages, streamed) that calls any tool with any arguments.
// The shared mock (mock.mjs) can only call a tool named bash; the search figures need grep and find.
// A prompt carries its call as [[call=<base64url of {"name": ..., "input": {...}}>]] (see callPrompt):
// the first reply of a turn calls that tool, the reply to its result is a short text.
import { createServer } from "node:http";

const directive = /\[\[call=([A-Za-z0-9_-]+)\]\]/;

/** The prompt text that makes the model call `name` with `input`. */
export function callPrompt(name, input) {
	const encoded = Buffer.from(JSON.stringify({ name, input })).toString("base64url");
	return `search [[call=${encoded}]]`;
}

function textOf(content) {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.filter((block) => block?.type === "text" && typeof block.text === "string")
		.map((block) => block.text)
		.join("\n");
}

function isToolResult(message) {
	return Array.isArray(message?.content) && message.content.some((block) => block?.type === "tool_result");
}

/** What to answer: the call of the last user text, unless the conversation ends with a tool result. */
function decide(body) {
	const messages = Array.isArray(body?.messages) ? body.messages : [];
	const last = messages[messages.length - 1];
	if (!last || isToolResult(last)) return { type: "text", text: "done" };
	const found = directive.exec(textOf(last.content));
	if (!found) return { type: "text", text: "done" };
	const call = JSON.parse(Buffer.from(found[1], "base64url").toString("utf8"));
	return { type: "tool", name: call.name, input: call.input };
}

let counter = 0;

function stream(response, answer) {
	const id = `msg_bench_${++counter}`;
	response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
	const send = (event, data) =>
		response.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
	send("message_start", {
		message: {
			id,
			type: "message",
			role: "assistant",
			model: "mock-model",
			content: [],
			stop_reason: null,
			stop_sequence: null,
			usage: { input_tokens: 10, output_tokens: 1 },
		},
	});
	if (answer.type === "tool") {
		const block = { type: "tool_use", id: `toolu_bench_${counter}`, name: answer.name, input: {} };
		send("content_block_start", { index: 0, content_block: block });
		send("content_block_delta", {
			index: 0,
			delta: { type: "input_json_delta", partial_json: JSON.stringify(answer.input) },
		});
	} else {
		send("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
		send("content_block_delta", { index: 0, delta: { type: "text_delta", text: answer.text } });
	}
	send("content_block_stop", { index: 0 });
	const stopReason = answer.type === "tool" ? "tool_use" : "end_turn";
	send("message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 5 } });
	send("message_stop", {});
	response.end();
}

/** Starts the server on a free loopback port: { baseUrl, stop() }. */
export async function startToolModel() {
	const server = createServer((request, response) => {
		const chunks = [];
		request.on("data", (chunk) => chunks.push(chunk));
		request.on("end", () => {
			if (request.method !== "POST" || !request.url?.startsWith("/v1/messages")) {
				response.writeHead(404, { "content-type": "application/json" });
				response.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: "not found" } }));
				return;
			}
			try {
				stream(response, decide(JSON.parse(Buffer.concat(chunks).toString("utf8"))));
			} catch (error) {
				response.writeHead(400, { "content-type": "application/json" });
				const message = error instanceof Error ? error.message : String(error);
				response.end(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message } }));
			}
		});
	});
	await new Promise((resolve, reject) => {
		server.once("error", reject);
		server.listen(0, "127.0.0.1", resolve);
	});
	const { port } = server.address();
	return {
		baseUrl: `http://127.0.0.1:${port}`,
		stop: () =>
			new Promise((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
