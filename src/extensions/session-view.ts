import { dirname } from "node:path";
import type { AgentMessage } from "../agent/messages.js";
import type { ThinkingLevel } from "../llm/types.js";
import type { Session } from "../session/session.js";
import type { SessionEntry, SessionHeader, SessionModelRef, TreeNode } from "../session/types.js";

/** The session as the model sees it: the active branch's entries after compaction, and its messages. */
export interface SessionProjection {
	entries: SessionEntry[];
	messages: AgentMessage[];
	thinkingLevel: ThinkingLevel;
	model: SessionModelRef | null;
}

/**
 * The read side of the session (pi's ReadonlySessionManager), for `ctx.sessionManager`. Every call
 * reads the session current at that moment: after a switch it answers for the new one.
 */
export interface ReadonlySessionManager {
	getCwd(): string;
	/** Where the session file lives; "" for an in-memory session. */
	getSessionDir(): string;
	getSessionId(): string;
	/** Undefined for an in-memory session (`--no-session`). */
	getSessionFile(): string | undefined;
	getSessionName(): string | undefined;
	getHeader(): SessionHeader | null;
	/** Every entry in append order (a copy), without the header. */
	getEntries(): SessionEntry[];
	getEntry(id: string): SessionEntry | undefined;
	getChildren(parentId: string): SessionEntry[];
	/** Root to `fromId` (default: the leaf), every entry type included. */
	getBranch(fromId?: string): SessionEntry[];
	getTree(): TreeNode[];
	getLeafId(): string | null;
	getLeafEntry(): SessionEntry | undefined;
	getLabel(id: string): string | undefined;
	/** The active branch with compaction applied. */
	buildContextEntries(): SessionEntry[];
	buildSessionProjection(): SessionProjection;
}

/** A read-only view of whatever session `current()` returns when a method is called. */
export function createSessionView(current: () => Session): ReadonlySessionManager {
	return {
		getCwd: () => current().cwd,
		getSessionDir: () => {
			const file = current().file;
			return file === undefined ? "" : dirname(file);
		},
		getSessionId: () => current().id,
		getSessionFile: () => current().file,
		getSessionName: () => current().name,
		getHeader: () => ({ ...current().header }),
		getEntries: () => [...current().entries()],
		getEntry: (id) => current().getEntry(id),
		getChildren: (parentId) => current().getChildren(parentId),
		getBranch: (fromId) => current().getBranch(fromId),
		getTree: () => current().getTree(),
		getLeafId: () => current().leafId,
		getLeafEntry: () => current().getLeafEntry(),
		getLabel: (id) => current().getLabel(id),
		buildContextEntries: () => current().buildContextEntries(),
		buildSessionProjection: () => {
			const session = current();
			const context = session.buildContext();
			return { entries: session.buildContextEntries(), ...context };
		},
	};
}
