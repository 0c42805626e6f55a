// The MCP client, loaded with a dynamic import when a session has servers (or an ACP client adds
// some): start-up without MCP configuration loads none of it.
export { collectServers } from "./collect.js";
export { parseEntry } from "./config-file.js";
export { type McpManagerOptions, McpServerManager } from "./manager.js";
export { readMcpSettings } from "./settings.js";
