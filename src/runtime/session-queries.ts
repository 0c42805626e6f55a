import { resolve } from "node:path";
import { type AgentMessage, messageText } from "../agent/messages.js";
import type { Model, ThinkingLevel } from "../llm/types.js";
import type { Session } from "../session/session.js";
import type { TreeNode } from "../session/types.js";
import { type SessionStats, sessionStats } from "./stats.js";

/** The thinking level the active branch recorded, or undefined when it recorded none. */
export function recordedThinkingLevel(session: Session): ThinkingLevel | undefined {
	const recorded = session.getBranch().some((entry) => entry.type === "thinking_level_change");
	return recorded ? session.buildContext().thinkingLevel : undefined;
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
	const { exportSessionHtml } = await import("../export/index.js");
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
