// What `atomic serve` adds to the records of RPC mode, checked before the client relies on it.
import type { AgentMessage } from "../../../agent/messages.js";
import type { SessionState, SessionSummary } from "../../../runtime/facade/api-types.js";
import type { InProgress } from "../../streamed-reply.js";
import type { AttachResult, ResyncEvent } from "../types.js";

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A seq as the server numbers events: a whole number >= 0. */
export function isSeq(value: unknown): value is number {
	return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** `get_state`'s data, as far as the client reads it (the rest is the server's contract). */
function isSessionState(value: unknown): value is SessionState {
	return isObject(value) && typeof value.sessionId === "string" && typeof value.isStreaming === "boolean";
}

function isMessageList(value: unknown): value is AgentMessage[] {
	return Array.isArray(value) && value.every((message) => isObject(message) && typeof message.role === "string");
}

/** `inProgress`, when there: a reply that is an assistant message, and a list of tools. */
function isInProgress(value: unknown): value is InProgress | undefined {
	if (value === undefined) return true;
	if (!isObject(value) || !Array.isArray(value.tools)) return false;
	const message = value.message;
	return message === undefined || (isObject(message) && message.role === "assistant" && Array.isArray(message.content));
}

export function isAttachResult(value: unknown): value is AttachResult {
	return (
		isObject(value) &&
		typeof value.sessionId === "string" &&
		isSeq(value.seq) &&
		isSessionState(value.state) &&
		isInProgress(value.inProgress)
	);
}

export function isResync(value: unknown): value is ResyncEvent {
	return (
		isObject(value) &&
		value.type === "resync" &&
		typeof value.sessionId === "string" &&
		isSeq(value.seq) &&
		isSessionState(value.state) &&
		isMessageList(value.messages) &&
		isInProgress(value.inProgress)
	);
}

function optional(value: unknown, type: "string" | "number"): boolean {
	return value === undefined || typeof value === type;
}

function isSessionSummary(value: unknown): value is SessionSummary {
	return (
		isObject(value) &&
		typeof value.id === "string" &&
		(value.name === null || typeof value.name === "string") &&
		typeof value.cwd === "string" &&
		(value.file === null || typeof value.file === "string") &&
		typeof value.live === "boolean" &&
		typeof value.streaming === "boolean" &&
		isSeq(value.attached) &&
		optional(value.modified, "string") &&
		optional(value.messageCount, "number") &&
		optional(value.firstMessage, "string")
	);
}

/** The sessions of a `list_sessions` answer. */
export function sessionsOf(data: unknown): SessionSummary[] | undefined {
	if (!isObject(data) || !Array.isArray(data.sessions)) return undefined;
	const sessions: SessionSummary[] = [];
	for (const session of data.sessions) {
		if (!isSessionSummary(session)) return undefined;
		sessions.push(session);
	}
	return sessions;
}
