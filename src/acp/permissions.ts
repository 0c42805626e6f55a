import {
	type AgentContext,
	type PermissionOption,
	RequestError,
	type RequestPermissionRequest,
	type SessionModeState,
	type ToolCallContent,
} from "@agentclientprotocol/sdk";
import { APPROVAL_MODES, type ApprovalDecision, isApprovalMode } from "../permissions/index.js";
import type { ApprovalHandler, ToolApprovalRequest } from "../runtime/approvals/types.js";
import type { AgentSession } from "../runtime/facade/agent-session.js";
import { presentToolCall, toolCallPath } from "./tool-presentation.js";
import { errorText } from "./update-queue.js";

const MODE_TEXTS: Record<(typeof APPROVAL_MODES)[number], { name: string; description: string }> = {
	auto: { name: "Auto", description: "Every tool call runs unless a deny rule matches" },
	ask: { name: "Ask", description: "Read-only tools run; every other call asks first" },
	"read-only": { name: "Read-only", description: "Read-only tools run; every other call is refused" },
};

/** The session modes: Atomic's approval modes. */
export function sessionModes(session: AgentSession): SessionModeState {
	return {
		currentModeId: session.approvalMode,
		availableModes: APPROVAL_MODES.map((id) => ({ id, ...MODE_TEXTS[id] })),
	};
}

/** `session/set_mode`: switches the approval mode (throws when the project's settings forbid it). */
export function setSessionMode(session: AgentSession, modeId: string): void {
	if (!isApprovalMode(modeId)) {
		throw RequestError.invalidParams({ modeId }, `unknown mode "${modeId}" (modes: ${APPROVAL_MODES.join(", ")})`);
	}
	try {
		session.setApprovalMode(modeId);
	} catch (error) {
		throw RequestError.invalidParams({ modeId }, errorText(error));
	}
}

/** One option per decision; the option id is the decision, the "always" ones name the rule they add. */
function optionFor(decision: ApprovalDecision, rule: string): PermissionOption {
	switch (decision) {
		case "allow":
			return { optionId: decision, name: "Allow once", kind: "allow_once" };
		case "allow_always":
			return { optionId: decision, name: `Always allow ${rule}`, kind: "allow_always" };
		case "deny":
			return { optionId: decision, name: "Reject", kind: "reject_once" };
		case "deny_always":
			return { optionId: decision, name: `Always reject ${rule}`, kind: "reject_always" };
	}
}

export interface PermissionHost {
	client(): AgentContext;
	sessionId(): string;
	cwd(): string;
}

/** What an edit or write would change, shown with the question (the text after the call). */
function proposed(request: ToolApprovalRequest, cwd: string): ToolCallContent[] {
	const path = toolCallPath(request.args, cwd);
	if (path === undefined) return [];
	if (request.toolName === "write" && typeof request.args.content === "string") {
		return [{ type: "diff", path, oldText: null, newText: request.args.content }];
	}
	if (
		request.toolName === "edit" &&
		typeof request.args.oldText === "string" &&
		typeof request.args.newText === "string"
	) {
		return [{ type: "diff", path, oldText: request.args.oldText, newText: request.args.newText }];
	}
	return [];
}

/**
 * Tool approvals as `session/request_permission`: the call (its title, kind, locations, raw input
 * and, for edits and writes, the proposed change) with one option per decision Atomic offers:
 * allow once, always allow, reject once and always reject (the "always" options name the rule they
 * add for the session). A cancelled request
 * (`session/cancel`, an abort, the request's timeout) or a failed one denies the call.
 */
export function permissionHandler(host: PermissionHost): ApprovalHandler {
	return async (request, signal) => {
		const options = request.options.map((decision) => optionFor(decision, request.alwaysRule));
		const { kind, title, locations } = presentToolCall(request.toolName, request.args, host.cwd());
		const toolCall = {
			toolCallId: request.toolCallId,
			title,
			kind,
			status: "pending" as const,
			locations,
			rawInput: request.args,
			content: proposed(request, host.cwd()),
		};
		const params: RequestPermissionRequest = { sessionId: host.sessionId(), toolCall, options };
		const response = await host.client().request("session/request_permission", params, {
			cancellationSignal: signal,
			stopWaitingOnCancel: true,
		});
		if (response.outcome.outcome !== "selected") return { decision: "deny", message: "The user cancelled." };
		const chosen = response.outcome.optionId;
		const decision = request.options.find((option) => option === chosen);
		return decision ?? { decision: "deny", message: `Unknown answer "${chosen}".` };
	};
}
