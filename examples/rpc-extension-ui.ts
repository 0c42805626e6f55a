// A client for the extension UI sub-protocol: it starts Atomic with the rpc-demo extension, runs
// /rpc-demo, answers every dialog from the terminal and shows every fire-and-forget request.
//
//   node scripts/run-ts.mjs examples/rpc-extension-ui.ts [atomic args...]
//
// Atomic is `node $ATOMIC_CLI` when that is set, else `atomic` on the PATH. Without `-e` in the
// arguments, examples/extensions/rpc-demo.ts (relative to the working directory) is loaded.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline/promises";

type UiRequest = { type: "extension_ui_request"; id: string; method: string } & Record<string, unknown>;

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isUiRequest(record: Record<string, unknown>): record is UiRequest {
	return record.type === "extension_ui_request" && typeof record.id === "string" && typeof record.method === "string";
}

const extra = process.argv.slice(2);
const args = ["--mode", "rpc", ...(extra.includes("-e") ? [] : ["-e", "examples/extensions/rpc-demo.ts"]), ...extra];
const cli = process.env.ATOMIC_CLI;
const agent = cli ? spawn(process.execPath, [cli, ...args]) : spawn("atomic", args);
agent.stderr.pipe(process.stderr);
const terminal = createInterface({ input: process.stdin, output: process.stdout });

function send(record: Record<string, unknown>): void {
	agent.stdin.write(`${JSON.stringify(record)}\n`);
}

/** Asks the user for a dialog's answer and returns the extension_ui_response fields. */
async function answer(request: UiRequest): Promise<Record<string, unknown>> {
	const timeout = typeof request.timeout === "number" ? ` (closes by itself after ${request.timeout / 1000} s)` : "";
	switch (request.method) {
		case "select": {
			const options = Array.isArray(request.options) ? request.options.map(String) : [];
			for (const [index, option] of options.entries()) console.log(`  ${index + 1}. ${option}`);
			const reply = await terminal.question(`${String(request.title)}${timeout} [number, empty to cancel]: `);
			const picked = options[Number(reply) - 1];
			return picked === undefined ? { cancelled: true } : { value: picked };
		}
		case "confirm": {
			const reply = await terminal.question(`${String(request.title)} ${String(request.message)}${timeout} [y/n]: `);
			return { confirmed: /^y/i.test(reply.trim()) };
		}
		case "input": {
			const hint = typeof request.placeholder === "string" ? ` (${request.placeholder})` : "";
			return { value: await terminal.question(`${String(request.title)}${hint}${timeout}: `) };
		}
		case "editor": {
			console.log(`${String(request.title)}; the text so far:\n${String(request.prefill ?? "")}`);
			const reply = await terminal.question("Replacement text, empty to keep it: ");
			return { value: reply === "" ? String(request.prefill ?? "") : reply };
		}
		default:
			return { cancelled: true };
	}
}

/** Fire-and-forget requests: shown, never answered. */
function show(request: UiRequest): void {
	const { type: _type, id: _id, method, ...fields } = request;
	console.log(`[${method}] ${JSON.stringify(fields)}`);
}

const DIALOGS = new Set(["select", "confirm", "input", "editor"]);
let dialogs = Promise.resolve();

function onRecord(record: Record<string, unknown>): void {
	if (isUiRequest(record)) {
		const request = record;
		if (DIALOGS.has(request.method)) {
			// One question at a time on the terminal; Atomic may have several dialogs open.
			dialogs = dialogs.then(async () =>
				send({ type: "extension_ui_response", id: request.id, ...(await answer(request)) }),
			);
		} else show(request);
	} else if (record.type === "extension_error") {
		console.log(`[extension error] ${String(record.error)}`);
	} else if (record.type === "response" && record.id === "demo") {
		console.log(record.success ? "The demo finished." : `The demo failed: ${String(record.error)}`);
		terminal.close();
		agent.stdin.end();
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
agent.on("exit", (code) => process.exit(code ?? 0));

send({ id: "demo", type: "prompt", message: "/rpc-demo" });
