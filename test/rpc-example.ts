// An interactive terminal client for `atomic --mode rpc`: type a prompt and the reply streams in;
// a line typed while the agent works is sent as steering; Ctrl+C aborts the run (and exits when
// nothing runs); Ctrl+D (end of input) quits once the agent is idle.
//
//   node scripts/run-ts.mjs test/rpc-example.ts [atomic args...]
//
// Atomic is `node $ATOMIC_CLI` when that is set, else `atomic` on the PATH; the arguments are
// passed on (e.g. `--model anthropic/claude-sonnet-4-5 --no-session`).
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

const args = ["--mode", "rpc", ...process.argv.slice(2)];
const cli = process.env.ATOMIC_CLI;
const agent = cli ? spawn(process.execPath, [cli, ...args]) : spawn("atomic", args);
agent.stderr.pipe(process.stderr);
const terminal = createInterface({ input: process.stdin, output: process.stdout, prompt: "> " });

let busy = false;
let inputEnded = false;
let counter = 0;

function send(command: Record<string, unknown>): void {
	agent.stdin.write(`${JSON.stringify({ id: `c${++counter}`, ...command })}\n`);
}

function ready(): void {
	busy = false;
	if (inputEnded) agent.stdin.end();
	else terminal.prompt();
}

/** What one record from the agent means for the terminal. */
function onRecord(record: Record<string, unknown>): void {
	switch (record.type) {
		case "message_update": {
			const delta = record.assistantMessageEvent;
			if (isRecord(delta) && delta.type === "text_delta") process.stdout.write(String(delta.delta));
			break;
		}
		case "tool_execution_start":
			process.stdout.write(`\n[${String(record.toolName)} ${JSON.stringify(record.args)}]\n`);
			break;
		case "message_end": {
			const message = record.message;
			if (isRecord(message) && message.role === "assistant") {
				if (message.stopReason === "aborted") process.stdout.write("\n[aborted]");
				else if (message.stopReason === "error") process.stdout.write(`\n[error: ${String(message.errorMessage)}]`);
				process.stdout.write("\n");
			}
			break;
		}
		case "agent_settled":
			ready();
			break;
		case "response":
			// A refused prompt gets no run: say why and take the next line.
			if (record.success === false) {
				console.log(`[${String(record.command)} failed: ${String(record.error)}]`);
				if (record.command === "prompt") ready();
			} else if (isRecord(record.data) && record.data.disposition === "handled") ready();
			break;
		case "extension_ui_request":
			// Dialogs are not answered here (see examples/rpc-extension-ui.ts): they get their default.
			if (["select", "confirm", "input", "editor"].includes(String(record.method)))
				send({ type: "extension_ui_response", id: record.id, cancelled: true });
			break;
	}
}

// Records are separated by LF only (a JSON string may hold other line separators).
let buffer = "";
agent.stdout.setEncoding("utf8").on("data", (chunk: string) => {
	buffer += chunk;
	for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
		const line = buffer.slice(0, newline);
		buffer = buffer.slice(newline + 1);
		const record: unknown = line.trim() ? JSON.parse(line) : undefined;
		if (isRecord(record)) onRecord(record);
	}
});

terminal.on("line", (line) => {
	const text = line.trim();
	if (!text) return terminal.prompt();
	if (busy) send({ type: "steer", message: text });
	else {
		busy = true;
		send({ type: "prompt", message: text });
	}
});

/** Ctrl+C: abort a run; when nothing runs, quit. */
function interrupt(): void {
	if (busy) send({ type: "abort" });
	else {
		terminal.close();
		agent.stdin.end();
	}
}
terminal.on("SIGINT", interrupt);
process.on("SIGINT", interrupt);
terminal.on("close", () => {
	inputEnded = true;
	if (!busy) agent.stdin.end();
});
agent.on("exit", (code) => process.exit(code ?? 0));
terminal.prompt();
