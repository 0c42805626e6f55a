// The parts of the MCP SDK the client uses, in one module that is imported dynamically on the
// first connection: start-up without MCP servers never loads the SDK.
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
export { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
export { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
export { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
export { ProcessTransport } from "./process-transport.js";
