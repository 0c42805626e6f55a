import { resolve } from "node:path";
import { type AgentMessage, messageText } from "../../agent/messages.js";
import { type Model, THINKING_LEVELS, type ThinkingLevel } from "../../llm/types.js";
import { isActiveCompaction } from "../../session/context.js";
import type { Session } from "../../session/session.js";
import { isKnownEntry, type TreeNode } from "../../session/types.js";
import { type SessionStats, sessionStats } from "./stats.js";

/**
 * The thinking level the active branch recorded last, or undefined when it recorded none. A level
 * this build does not know (written by another program) is skipped; only such levels mean "off".
 */
export function recordedThinkingLevel(session: Session): ThinkingLevel | undefined {
	const branch = session.getBranch();
	let sawUnknown = false;
	for (let index = branch.length - 1; index >= 0; index--) {
		const entry = branch[index];
		if (entry?.type !== "thinking_level_change") continue;
		const level = THINKING_LEVELS.find((known) => known === entry.thinkingLevel);
		if (level) return level;
		sawUnknown = true;
	}
	return sawUnknown ? "off" : undefined;
}

/**
 * Whether the context size is known from the session itself: false when the active branch's
 * latest compaction comes after its latest assistant reply with usage (the reply's usage
 * describes the context before the compaction), true otherwise. Derived from the entries, so a
 * reopened session answers as the live one did.
 */
export function contextSizeKnown(session: Session): boolean {
	for (let id = session.leafId; id !== null; ) {
		const entry = session.getEntry(id);
		if (!entry) return true;
		if (isActiveCompaction(entry)) return false;
		if (isKnownEntry(entry) && entry.type === "message" && isUsageReport(entry.message)) return true;
		id = entry.parentId;
	}
	return true;
}

function isUsageReport(message: AgentMessage): boolean {
	if (message.role !== "assistant" || message.stopReason === "error" || message.stopReason === "aborted") return false;
	const usage = message.usage;
	return usage.input + usage.output + usage.cacheRead + usage.cacheWrite > 0;
}

/** All entries, or those strictly after `since` (throws `Entry not found: <id>` for an unknown id). */
export function entriesOf(session: Session, since?: string): ReturnType<Session["entriesSince"]> {
	if (since !== undefined) return session.entriesSince(since);
	return { entries: [...session.entries()], leafId: session.leafId };
}

export function treeOf(session: Session): { tree: TreeNode[]; leafId: string | null } {
	return { tree: session.getTree(), leafId: session.leafId };
}

/** Text of the last assistant reply (an aborted, empty one is skipped), or null when there is none. */
export function lastAssistantText(messages: readonly AgentMessage[]): string | null {
	for (let index = messages.length - 1; index >= 0; index--) {
		const message = messages[index] as AgentMessage;
		if (message.role !== "assistant") continue;
		const text = messageText(message).trim();
		if (message.stopReason === "aborted" && !text) continue;
		return text || null;
	}
	return null;
}

export function statsOf(session: Session, model: Model | undefined, contextTokens: number | null): SessionStats {
	return sessionStats({
		sessionFile: session.file,
		sessionId: session.id,
		entries: session.entries(),
		model,
		contextTokens,
	});
}

/**
 * Writes a session as one self-contained HTML file (default: `atomic-session-<id>.html` in `cwd`).
 * An in-memory session needs an explicit outputPath.
 */
export async function exportHtmlFile(
	session: Session,
	cwd: string,
	config: { systemPrompt?: string; tools: readonly { name: string; description: string }[] },
	outputPath?: string,
): Promise<string> {
	// Without a session file there is no natural place for the export: ask for one.
	if (!session.file && outputPath === undefined)
		throw new Error("Cannot export in-memory session to HTML without an outputPath");
	if (session.entries().length === 0) throw new Error("Nothing to export yet - start a conversation first");
	const { exportSessionHtml } = await import("../../export/index.js");
	return exportSessionHtml(
		{
			header: session.header,
			entries: [...session.entries()],
			leafId: session.leafId,
			systemPrompt: config.systemPrompt,
			tools: config.tools.map(({ name, description }) => ({ name, description })),
		},
		resolve(cwd, outputPath ?? `atomic-session-${session.id}.html`),
	);
}
