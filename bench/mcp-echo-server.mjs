// A minimal MCP server over stdio (one `echo` tool), for the cold-start-mcp figure: what a small
// real server costs Atomic's start-up. Run as `node bench/mcp-echo-server.mjs`.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const server = new Server({ name: "bench-echo", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
	tools: [
		{
			name: "echo",
			description: "Echo the text back.",
			inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
		},
	],
}));
server.setRequestHandler(CallToolRequestSchema, (request) => ({
	content: [{ type: "text", text: String(request.params.arguments?.text ?? "") }],
}));
await server.connect(new StdioServerTransport());
