import type { AssistantMessage } from "../llm/types.js";
import { NO_CLIENT_TEXT } from "../permissions/texts.js";
import { createWireEncoder } from "../rpc/wire-events.js";
import type { AgentSession } from "../runtime/facade/agent-session.js";

/**
 * Runs one prompt through the full agent. Text mode prints the final reply's text; json mode
 * prints every event as one JSON line. Errors go to stderr. Returns the exit code.
 */
export async function runPrintMode(session: AgentSession, prompt: string, mode: "text" | "json"): Promise<number> {
	if (session.approvalMode === "ask") {
		process.stderr.write(
			`Note: approval mode "ask" and no client to approve: tool calls that need approval are denied (${NO_CLIENT_TEXT})\n`,
		);
	}
	let last: AssistantMessage | undefined;
	const encode = createWireEncoder();
	session.subscribe((event) => {
		if (event.type === "message_end" && event.message.role === "assistant") last = event.message;
		if (mode === "json") process.stdout.write(`${JSON.stringify(encode(event))}\n`);
	});
	const onSignal = () => void session.abort();
	process.once("SIGINT", onSignal);
	try {
		await session.prompt(prompt);
	} finally {
		process.removeListener("SIGINT", onSignal);
		await session.dispose();
	}
	if (!last) return 1;
	if (last.stopReason === "error" || last.stopReason === "aborted") {
		process.stderr.write(`Error: ${last.errorMessage ?? last.stopReason}\n`);
		return 1;
	}
	if (mode === "text") {
		const text = last.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
		process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
	}
	return 0;
}
