/**
 * Session store benchmarks: opening a ~100 MB session and building its context, and listing 500
 * sessions (cold, from the index, and after appends). Run by hand:
 *   node scripts/run-ts.mjs bench/session-open.bench.ts [sizeMB]
 */
import { appendFileSync, closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AssistantMessage, ToolResultMessage, UserMessage } from "../src/llm/types.js";
import { listSessions } from "../src/session/listing.js";
import { openSession } from "../src/session/open.js";

const targetBytes = Number(process.argv[2] ?? 100) * 1024 * 1024;
const root = mkdtempSync(join(tmpdir(), "atomic-session-bench-"));

const usage = {
	input: 1200,
	output: 300,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 1500,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
const words = "the quick brown fox jumps over a lazy dog while compiling typescript modules and reading files".split(
	" ",
);

function prose(length: number, seed: number): string {
	let text = "";
	for (let index = seed; text.length < length; index++) text += `${words[index % words.length]} `;
	return text.slice(0, length);
}

function toolOutput(length: number, seed: number): string {
	const lines: string[] = [];
	let size = 0;
	for (let line = 0; size < length; line++) {
		const text = `${String(line + 1).padStart(5)}\t${prose(40 + ((seed + line) % 80), seed + line)}`;
		lines.push(text);
		size += text.length + 1;
	}
	return lines.join("\n");
}

/** Writes a session of about `bytes` bytes: tool-heavy turns, with a branch every 40 turns. */
function generateSession(path: string, bytes: number, cwd: string): { entries: number } {
	const fd = openSync(path, "w");
	let written = 0;
	let count = 0;
	let leaf: string | null = null;
	const ids: string[] = [];
	const write = (record: object) => {
		const line = `${JSON.stringify(record)}\n`;
		written += writeSync(fd, line);
	};
	const entry = (fields: object) => {
		const id = (count++).toString(16).padStart(8, "0");
		const time = new Date(Date.UTC(2026, 0, 1) + count * 1000).toISOString();
		write({ ...fields, id, parentId: leaf, timestamp: time });
		ids.push(id);
		leaf = id;
	};
	write({ type: "session", version: 3, id: "bench-session", timestamp: "2026-01-01T00:00:00.000Z", cwd });
	entry({ type: "model_change", provider: "anthropic", modelId: "claude-bench" });
	entry({ type: "thinking_level_change", thinkingLevel: "medium" });
	for (let turn = 0; written < bytes; turn++) {
		if (turn > 0 && turn % 40 === 0) leaf = ids[ids.length - 12] ?? leaf;
		const question: UserMessage = { role: "user", content: prose(200 + (turn % 400), turn), timestamp: turn };
		entry({ type: "message", message: question });
		for (let step = 0; step < 3; step++) {
			const callId = `call_${turn}_${step}`;
			const reply: AssistantMessage = {
				role: "assistant",
				content: [
					{ type: "thinking", thinking: prose(400, turn + step), thinkingSignature: "sig".repeat(40) },
					{ type: "text", text: prose(150, turn * 3 + step) },
					{ type: "toolCall", id: callId, name: "read", arguments: { path: `src/file-${turn}-${step}.ts` } },
				],
				api: "anthropic-messages",
				provider: "anthropic",
				model: "claude-bench",
				usage,
				stopReason: "toolUse",
				timestamp: turn,
			};
			entry({ type: "message", message: reply });
			const result: ToolResultMessage = {
				role: "toolResult",
				toolCallId: callId,
				toolName: "read",
				content: [{ type: "text", text: toolOutput(2_000 + ((turn * 7919 + step * 104729) % 30_000), turn + step) }],
				isError: false,
				timestamp: turn,
			};
			entry({ type: "message", message: result });
		}
		const answer: AssistantMessage = {
			role: "assistant",
			content: [{ type: "text", text: prose(600, turn) }],
			api: "anthropic-messages",
			provider: "anthropic",
			model: "claude-bench",
			usage,
			stopReason: "stop",
			timestamp: turn,
		};
		entry({ type: "message", message: answer });
	}
	closeSync(fd);
	return { entries: count };
}

function time<T>(run: () => T): [T, number] {
	const start = performance.now();
	const result = run();
	return [result, performance.now() - start];
}

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

const ms = (value: number) => `${value.toFixed(0)} ms`;

try {
	const bigFile = join(root, "big.jsonl");
	const [{ entries }, generateMs] = time(() => generateSession(bigFile, targetBytes, root));
	const sizeMb = statSync(bigFile).size / 1024 / 1024;
	console.log(`generated ${sizeMb.toFixed(1)} MB, ${entries} entries in ${ms(generateMs)}`);
	const opens: number[] = [];
	const contexts: number[] = [];
	for (let run = 0; run < 5; run++) {
		const [session, openMs] = time(() => openSession(bigFile));
		const [context, contextMs] = time(() => session.buildContext());
		opens.push(openMs);
		contexts.push(contextMs);
		if (run === 0)
			console.log(`active branch: ${session.getBranch().length} entries, ${context.messages.length} messages`);
		session.close();
	}
	console.log(`open ${sizeMb.toFixed(0)} MB session: median ${ms(median(opens))} (runs: ${opens.map(ms).join(", ")})`);
	console.log(`build context: median ${ms(median(contexts))} (runs: ${contexts.map(ms).join(", ")})`);
	console.log(`open + context: median ${ms(median(opens.map((open, index) => open + (contexts[index] ?? 0))))}`);

	const listDir = join(root, "many");
	mkdirSync(listDir);
	const files: string[] = [];
	for (let index = 0; index < 500; index++) {
		const file = join(listDir, `2026-01-01T00-00-00-${String(index).padStart(3, "0")}Z_s${index}.jsonl`);
		generateSession(file, 20_000 + (index % 10) * 8_000, `/proj/${index % 5}`);
		files.push(file);
	}
	let scanned = 0;
	const onScan = () => {
		scanned++;
	};
	const [cold, coldMs] = time(() => listSessions(listDir, undefined, { onScan }));
	console.log(`list 500 sessions, no index: ${ms(coldMs)} (${scanned} files read)`);
	scanned = 0;
	const [, warmMs] = time(() => listSessions(listDir, undefined, { onScan }));
	console.log(`list 500 sessions, from the index: ${ms(warmMs)} (${scanned} files read)`);
	for (const file of files.slice(0, 5)) {
		appendFileSync(
			file,
			`${JSON.stringify({ type: "session_info", id: "ffffffff", parentId: null, timestamp: "2026-02-01T00:00:00.000Z", name: "renamed" })}\n`,
		);
	}
	scanned = 0;
	const [, grownMs] = time(() => listSessions(listDir, "/proj/0", { onScan }));
	console.log(`list after appending to 5 sessions (cwd filter): ${ms(grownMs)} (${scanned} files read)`);
	console.log(`listed ${cold.length} sessions, first: ${cold[0]?.messageCount} messages`);
} finally {
	rmSync(root, { recursive: true, force: true });
}
