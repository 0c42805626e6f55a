/**
 * A real MCP server for tests, built on the official SDK's server side. The same definition is
 * served over stdio (mcp-stdio-server.ts, a child process) and over streamable HTTP and SSE
 * (mcp-http-server.ts, in the test process). Tools:
 *   echo {text}         → the text (readOnlyHint: true)
 *   image               → a 1x1 PNG and a caption
 *   fail {message}      → isError: true with the message
 *   structured          → only structuredContent ({temperature, unit}), no content
 *   resource            → an embedded text resource
 *   write_note {text}   → "noted: <text>" (no annotations: a changing tool)
 *   wait                → never answers; reports `cancelled` when the client cancels it
 *   crash               → the process exits mid-call (stdio only)
 *   add_tool {name}     → adds a tool `name` (answers "added <name>") and sends tools/list_changed
 * Prompt: review {file (required), focus} → "Review <file>[ for <focus>]."
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
	CallToolRequestSchema,
	type CallToolResult,
	GetPromptRequestSchema,
	ListPromptsRequestSchema,
	ListToolsRequestSchema,
	type Tool,
} from "@modelcontextprotocol/sdk/types.js";

export const PNG_1X1 =
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/** What the server saw: calls as they start, and cancellations the client sent. */
export type TestMcpEvent =
	| { type: "call"; tool: string; arguments: Record<string, unknown> }
	| { type: "cancelled"; tool: string; reason: string };

export interface TestMcpServerOptions {
	/** Called for each event (in-process servers); must not throw. */
	onEvent?(event: TestMcpEvent): void;
	/** The process exits when `crash` is called (stdio); absent: `crash` answers with an error. */
	crash?(): void;
}

const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });

const BASE_TOOLS: Tool[] = [
	{
		name: "echo",
		description: "Echo the text back. Read-only.",
		inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
		annotations: { readOnlyHint: true },
	},
	{ name: "image", description: "A tiny red image.", inputSchema: { type: "object" } },
	{
		name: "fail",
		description: "Always fails.",
		inputSchema: { type: "object", properties: { message: { type: "string" } } },
	},
	{ name: "structured", description: "Weather as structured content.", inputSchema: { type: "object" } },
	{ name: "resource", description: "An embedded resource.", inputSchema: { type: "object" } },
	{
		name: "write_note",
		description: "Write a note.",
		inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
	},
	{ name: "wait", description: "Waits until cancelled.", inputSchema: { type: "object" } },
	{ name: "crash", description: "The server process exits.", inputSchema: { type: "object" } },
	{
		name: "add_tool",
		description: "Adds a tool.",
		inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
	},
];

function argument(args: Record<string, unknown> | undefined, name: string): string {
	const value = args?.[name];
	return typeof value === "string" ? value : "";
}

/** A fresh server (one per connection: an SDK server serves one transport). */
export function createTestMcpServer(options: TestMcpServerOptions = {}): Server {
	const tools = [...BASE_TOOLS];
	const server = new Server(
		{ name: "atomic-test-server", version: "1.0.0" },
		{ capabilities: { tools: { listChanged: true }, prompts: {} } },
	);
	server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
	server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
		const { name, arguments: args } = request.params;
		options.onEvent?.({ type: "call", tool: name, arguments: args ?? {} });
		switch (name) {
			case "echo":
				return text(argument(args, "text"));
			case "image":
				return {
					content: [
						{ type: "image", data: PNG_1X1, mimeType: "image/png" },
						{ type: "text", text: "a red dot" },
					],
				};
			case "fail":
				return { content: [{ type: "text", text: argument(args, "message") || "it failed" }], isError: true };
			case "structured":
				return { content: [], structuredContent: { temperature: 21.5, unit: "C" } };
			case "resource":
				return {
					content: [
						{ type: "resource", resource: { uri: "file:///notes.txt", mimeType: "text/plain", text: "note text" } },
					],
				};
			case "write_note":
				return text(`noted: ${argument(args, "text")}`);
			case "wait":
				return new Promise((_resolve, reject) => {
					extra.signal.addEventListener("abort", () => {
						options.onEvent?.({ type: "cancelled", tool: name, reason: String(extra.signal.reason) });
						reject(new Error("cancelled"));
					});
				});
			case "crash":
				if (!options.crash) return { content: [{ type: "text", text: "cannot crash here" }], isError: true };
				options.crash();
				return new Promise(() => undefined);
			case "add_tool": {
				const added = argument(args, "name");
				tools.push({ name: added, description: `Added at run time (${added}).`, inputSchema: { type: "object" } });
				await server.sendToolListChanged();
				return text(`added ${added}`);
			}
			default: {
				if (tools.some((tool) => tool.name === name)) return text(`${name} ran`);
				return { content: [{ type: "text", text: `unknown tool ${name}` }], isError: true };
			}
		}
	});
	server.setRequestHandler(ListPromptsRequestSchema, () => ({
		prompts: [
			{
				name: "review",
				description: "Review a file.",
				arguments: [
					{ name: "file", description: "The file to review", required: true },
					{ name: "focus", description: "What to look at" },
				],
			},
		],
	}));
	server.setRequestHandler(GetPromptRequestSchema, (request) => {
		const file = request.params.arguments?.file ?? "";
		const focus = request.params.arguments?.focus;
		return {
			messages: [{ role: "user", content: { type: "text", text: `Review ${file}${focus ? ` for ${focus}` : ""}.` } }],
		};
	});
	return server;
}
