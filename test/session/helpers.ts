import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import type { AssistantMessage, ToolCall, ToolResultMessage, UserMessage } from "../../src/llm/types.js";
import { nodeIo, type SessionIo } from "../../src/session/io.js";
import type { Session } from "../../src/session/session.js";

/** A fresh temporary directory per test, removed afterwards with every session opened in it. */
export function useTempDir(): { dir: () => string; track: (session: Session) => Session } {
	let current: string | undefined;
	let sessions: Session[] = [];
	afterEach(() => {
		for (const session of sessions) session.close();
		sessions = [];
		if (current) rmSync(current, { recursive: true, force: true });
		current = undefined;
	});
	return {
		dir: () => {
			current ??= mkdtempSync(join(tmpdir(), "atomic-session-"));
			return current;
		},
		track: (session) => {
			sessions.push(session);
			return session;
		},
	};
}

export function user(text: string, timestamp = 1000): UserMessage {
	return { role: "user", content: text, timestamp };
}

export function assistant(
	text: string,
	options: { stopReason?: AssistantMessage["stopReason"]; calls?: ToolCall[]; model?: string; provider?: string } = {},
): AssistantMessage {
	return {
		role: "assistant",
		content: [...(text ? [{ type: "text" as const, text }] : []), ...(options.calls ?? [])],
		api: "anthropic-messages",
		provider: options.provider ?? "test",
		model: options.model ?? "model-a",
		usage: {
			input: 1,
			output: 1,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: 2,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		},
		stopReason: options.stopReason ?? (options.calls?.length ? "toolUse" : "stop"),
		timestamp: 2000,
	};
}

export function call(id: string, name = "read", args: Record<string, unknown> = { path: "a.txt" }): ToolCall {
	return { type: "toolCall", id, name, arguments: args };
}

export function toolResult(toolCallId: string, text: string, toolName = "read"): ToolResultMessage {
	return {
		role: "toolResult",
		toolCallId,
		toolName,
		content: [{ type: "text", text }],
		isError: false,
		timestamp: 3000,
	};
}

/** Collects warnings instead of printing them. */
export function warnings(): { warn: (line: string) => void; lines: string[] } {
	const lines: string[] = [];
	return { warn: (line) => lines.push(line), lines };
}

/**
 * An I/O seam whose next `failWrites` writes store half their bytes and then throw ENOSPC, like a
 * disk filling up in the middle of a record.
 */
export function failingIo(): SessionIo & { failWrites: number; writes: number } {
	const io = {
		...nodeIo,
		failWrites: 0,
		writes: 0,
		write(fd: number, buffer: Buffer, offset: number, length: number): number {
			io.writes++;
			if (io.failWrites > 0) {
				io.failWrites--;
				nodeIo.write(fd, buffer, offset, Math.max(1, Math.floor(length / 2)));
				throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
			}
			return nodeIo.write(fd, buffer, offset, length);
		},
	};
	return io;
}
