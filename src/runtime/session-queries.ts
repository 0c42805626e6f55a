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
