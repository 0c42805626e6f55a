/**
 * The test MCP server (mcp-server.ts) as a stdio process: `node <built file> '<options JSON>'`.
 * Built and launched by mcp-stdio.ts. Options (all optional):
 *   pidFile          its pid is written there at start
 *   eventLog         each event is appended there as a JSON line
 *   startDelayMs     waits this long before it reads stdin (a slow start)
 *   gateFile         waits until this file exists before it reads stdin (a start the test releases)
 *   stubborn         ignores stdin EOF and SIGTERM (only SIGKILL ends it)
 *   stderr           a line written to stderr at start
 */
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createTestMcpServer } from "./mcp-server.js";

function readOptions(): Record<string, unknown> {
	const parsed: unknown = JSON.parse(process.argv[2] ?? "{}");
	return typeof parsed === "object" && parsed !== null ? { ...parsed } : {};
}

const options = readOptions();
function text(name: string): string | undefined {
	const value = options[name];
	return typeof value === "string" ? value : undefined;
}

const pidFile = text("pidFile");
if (pidFile) writeFileSync(pidFile, String(process.pid));
const stderrLine = text("stderr");
if (stderrLine) process.stderr.write(`${stderrLine}\n`);
if (options.stubborn === true) {
	process.on("SIGTERM", () => process.stderr.write("ignoring SIGTERM\n"));
	setInterval(() => undefined, 60_000);
}
const eventLog = text("eventLog");
const server = createTestMcpServer({
	onEvent: (event) => {
		if (eventLog) appendFileSync(eventLog, `${JSON.stringify(event)}\n`);
	},
	crash: () => {
		process.stderr.write("crashing on purpose\n");
		process.exit(3);
	},
});
const delay = typeof options.startDelayMs === "number" ? options.startDelayMs : 0;
const gateFile = text("gateFile");
const startedAt = Date.now();
const parent = process.ppid;
// Until it reads stdin it cannot see EOF: it ends when its parent is gone instead.
function connectWhenOpen(): void {
	if (process.ppid !== parent) process.exit(0);
	if (Date.now() - startedAt < delay || (gateFile && !existsSync(gateFile))) {
		setTimeout(connectWhenOpen, 20);
		return;
	}
	void server.connect(new StdioServerTransport());
}
connectWhenOpen();
