import type { AgentSession } from "../runtime/facade/agent-session.js";
import type { SessionSummary } from "../runtime/facade/api-types.js";
import type { SessionInfo } from "../session/listing.js";

/** A live session as `list_sessions` reports it (`attached`: how many clients follow it). */
export function liveSummary(session: AgentSession, attached: number): SessionSummary {
	const state = session.getState();
	return {
		id: state.sessionId,
		name: state.sessionName ?? null,
		cwd: session.cwd,
		file: state.sessionFile ?? null,
		live: true,
		streaming: state.isStreaming,
		attached,
		messageCount: state.messageCount,
	};
}

function storedSummary(info: SessionInfo): SessionSummary {
	return {
		id: info.id,
		name: info.name ?? null,
		cwd: info.cwd,
		file: info.path,
		live: false,
		streaming: false,
		attached: 0,
		modified: info.modified.toISOString(),
		messageCount: info.messageCount,
		firstMessage: info.firstMessage,
	};
}

/**
 * `list_sessions`: the live sessions, then the stored ones that are not live, most recently
 * active first.
 */
export function listSessionSummaries(
	live: readonly SessionSummary[],
	stored: readonly SessionInfo[],
): SessionSummary[] {
	const liveIds = new Set(live.map((summary) => summary.id));
	return [...live, ...stored.filter((info) => !liveIds.has(info.id)).map(storedSummary)];
}
