import { homedir } from "node:os";
import { ABORTED_CALL_TEXT } from "../../agent/tool-execution.js";
import type { ToolApprovalContext, ToolCallBlock } from "../../agent/types.js";
import {
	APPROVAL_DECISIONS,
	type ApprovalDecision,
	type ApprovalMode,
	type ApprovalRecord,
	allowsCall,
	alwaysRuleFor,
	type CallFacts,
	type DecidedBy,
	decide,
	deniedByMode,
	deniedByUser,
	isApprovalDecision,
	isLooser,
	NO_CLIENT_TEXT,
	type Policy,
	type ResolvedPermissions,
	timedOut,
} from "../../permissions/index.js";
import { randomUuid } from "../../platform/random.js";
import type { Session } from "../../session/session.js";
import { resolveToolPath } from "../../tools/paths.js";
import { SessionApprovalRules } from "./session-rules.js";
import type { ApprovalEvent, ApprovalHandler, ToolApprovalReply, ToolApprovalRequest } from "./types.js";

export type {
	ApprovalEvent,
	ApprovalHandler,
	ToolApprovalAnswer,
	ToolApprovalReply,
	ToolApprovalRequest,
} from "./types.js";

/** What approvals reach back for; none of these may throw. */
export interface ApprovalsHost {
	cwd(): string;
	/** The current session: audit entries go to the session a call started in. */
	session(): Session;
	/** Runs a session write, reporting a failure as a warning. */
	record(write: () => unknown): void;
	emit(event: ApprovalEvent): void;
	/** A request opened (what a heartbeat reports); returns what ends it. */
	waiting?(): () => void;
	/**
	 * For a call that asks to leave the sandbox (bash with `escalate`, the sandbox on): the sandbox
	 * mode and the model's justification. Undefined for every other call.
	 */
	escalation?(context: ToolApprovalContext): { mode: string; justification: string } | undefined;
	/** The user let this call run outside the sandbox once. */
	grantEscalation?(toolCallId: string): void;
}

/** What the model reads when an escalation cannot be asked for. */
const NO_CLIENT_ESCALATION =
	"Denied: running a command outside the sandbox needs a person to approve it, and no client can be asked";

interface Resolution {
	decision: ApprovalDecision;
	by: DecidedBy;
	rule?: string;
	message?: string;
	/** Why, for the audit (defaults to the request's reason). */
	reason?: string;
	/** For a deny: what the model reads. */
	text?: string;
}

interface OpenRequest {
	facts: CallFacts;
	escalation: boolean;
	settle(resolution: Resolution): void;
}

function block(reason: string): ToolCallBlock {
	return { block: true, reason };
}

/**
 * The runtime side of tool approvals: judges each call with the policy (src/permissions), asks
 * the handler when the policy says so, and records every decision but the mode's silent allows
 * in the session. Requests have ids and a timeout, several may be open at once, and each ends
 * exactly once: answered, timed out, decided by a rule that appeared meanwhile, or cancelled
 * when the run aborts or the session is replaced.
 */
export class ToolApprovals {
	private modeValue: ApprovalMode;
	/** `allow_always` and `deny_always` rules of the current session (recorded in it, so a reopened session keeps them). */
	private sessionRules: SessionApprovalRules;
	/** Rules of `allow_always` / `deny_always` answers to sandbox escalations: this process only. */
	private readonly escalationRules = new SessionApprovalRules();
	private readonly open = new Map<string, OpenRequest>();

	constructor(
		private readonly host: ApprovalsHost,
		private readonly permissions: ResolvedPermissions,
		private readonly handler: ApprovalHandler | undefined,
		private readonly createId: () => string = () => randomUuid(),
	) {
		this.modeValue = permissions.mode;
		this.sessionRules = SessionApprovalRules.recordedIn(host.session());
	}

	get mode(): ApprovalMode {
		return this.modeValue;
	}

	/** How many requests wait for an answer. */
	get openRequests(): number {
		return this.open.size;
	}

	/** Throws when `mode` is looser than the project's settings allow. Open requests are judged again. */
	setMode(mode: ApprovalMode): void {
		const { floor, floorSource } = this.permissions;
		if (isLooser(mode, floor)) {
			throw new Error(
				`Approval mode "${mode}" is looser than "${floor}", which ${floorSource ?? "the settings"} requires`,
			);
		}
		this.modeValue = mode;
		this.reconsider();
	}

	/** A session became current: open requests are cancelled, its recorded `allow_always` and `deny_always` rules apply. */
	adopt(session: Session): void {
		this.cancelAll();
		this.sessionRules = SessionApprovalRules.recordedIn(session);
	}

	/** Denies every open request (`by: "abort"`): on abort, session replacement and disposal. */
	cancelAll(): void {
		for (const request of [...this.open.values()])
			request.settle({ decision: "deny", by: "abort", text: ABORTED_CALL_TEXT });
	}

	/** The `approveToolCall` hook of the agent loop: undefined lets the call run, a block denies it. */
	readonly check = (context: ToolApprovalContext, signal: AbortSignal): Promise<ToolCallBlock | undefined> => {
		const facts = this.facts(context);
		const escalation = this.host.escalation?.(context);
		if (escalation) return this.checkEscalation(context, facts, escalation, signal);
		const verdict = decide(this.policy(), facts);
		const session = this.host.session();
		const call = { toolCallId: context.toolCall.id, toolName: context.toolCall.name };
		if (verdict.action === "allow") {
			if (!verdict.silent) {
				this.audit(session, {
					...call,
					decision: "allow",
					by: "rule",
					rule: verdict.rule,
					reason: `allowed by rule ${verdict.rule}`,
				});
			}
			return Promise.resolve(undefined);
		}
		if (verdict.action === "deny") {
			this.audit(session, { ...call, decision: "deny", by: "rule", rule: verdict.rule, reason: verdict.text });
			return Promise.resolve(block(verdict.text));
		}
		if (!this.handler) {
			this.audit(session, { ...call, decision: "deny", by: "rule", reason: NO_CLIENT_TEXT });
			return Promise.resolve(block(NO_CLIENT_TEXT));
		}
		if (signal.aborted) return Promise.resolve(block(ABORTED_CALL_TEXT));
		return this.ask(this.handler, this.request(context, facts, verdict.reason), facts, session, signal);
	};

	/**
	 * A call that asks to run outside the sandbox: deny rules still deny; an escalation rule the user
	 * added decides; otherwise the client is always asked, whatever the approval mode (`auto`
	 * included), and with nobody to ask it is denied. An allowed call is granted to the sandbox.
	 */
	private async checkEscalation(
		context: ToolApprovalContext,
		facts: CallFacts,
		{ mode, justification }: { mode: string; justification: string },
		signal: AbortSignal,
	): Promise<ToolCallBlock | undefined> {
		const session = this.host.session();
		const call = { toolCallId: context.toolCall.id, toolName: context.toolCall.name };
		if (this.modeValue === "read-only") {
			const text = deniedByMode(this.modeValue);
			this.audit(session, { ...call, decision: "deny", by: "rule", reason: text });
			return block(text);
		}
		const verdict = decide(this.escalationPolicy(), facts);
		if (verdict.action === "deny") {
			this.audit(session, { ...call, decision: "deny", by: "rule", rule: verdict.rule, reason: verdict.text });
			return block(verdict.text);
		}
		if (verdict.action === "allow") {
			this.audit(session, {
				...call,
				decision: "allow",
				by: "rule",
				reason: `sandbox escalation allowed by ${verdict.silent ? "the approval mode" : verdict.rule}`,
			});
			this.host.grantEscalation?.(call.toolCallId);
			return undefined;
		}
		if (!this.handler) {
			this.audit(session, { ...call, decision: "deny", by: "rule", reason: NO_CLIENT_ESCALATION });
			return block(NO_CLIENT_ESCALATION);
		}
		if (signal.aborted) return block(ABORTED_CALL_TEXT);
		const why = justification.trim() || "(no justification given)";
		const reason = `The model asks to run this command outside the sandbox (mode ${mode}): ${why}`;
		const request = { ...this.request(context, facts, reason), kind: "sandbox_escalation" as const };
		const outcome = await this.ask(this.handler, request, facts, session, signal);
		if (outcome === undefined) this.host.grantEscalation?.(call.toolCallId);
		return outcome;
	}

	/** Escalations: the deny rules of the settings and the session, then the escalation rules; otherwise ask. */
	private escalationPolicy(): Policy {
		return {
			mode: "ask",
			allow: this.escalationRules.allow,
			deny: [...this.permissions.deny, ...this.sessionRules.deny, ...this.escalationRules.deny],
		};
	}

	private request(context: ToolApprovalContext, facts: CallFacts, reason: string): ToolApprovalRequest {
		const request: ToolApprovalRequest = {
			id: this.createId(),
			toolCallId: context.toolCall.id,
			toolName: context.toolCall.name,
			// A copy: what a handler does with it cannot change the call.
			args: structuredClone(context.args),
			reason,
			options: [...APPROVAL_DECISIONS],
			alwaysRule: alwaysRuleFor(facts),
		};
		const timeout = this.permissions.timeoutMs;
		if (timeout > 0) {
			request.timeout = timeout;
			request.expiresAt = new Date(Date.now() + timeout).toISOString();
		}
		return request;
	}

	private ask(
		handler: ApprovalHandler,
		request: ToolApprovalRequest,
		facts: CallFacts,
		session: Session,
		signal: AbortSignal,
	): Promise<ToolCallBlock | undefined> {
		return new Promise((resolve) => {
			const controller = new AbortController();
			const stopWaiting = this.host.waiting?.();
			let timer: ReturnType<typeof setTimeout> | undefined;
			const onAbort = () => settle({ decision: "deny", by: "abort", text: ABORTED_CALL_TEXT });
			const settle = (resolution: Resolution) => {
				if (!this.open.delete(request.id)) return;
				stopWaiting?.();
				if (timer) clearTimeout(timer);
				signal.removeEventListener("abort", onAbort);
				controller.abort();
				const allowed = allowsCall(resolution.decision);
				const always = resolution.by === "user" && resolution.rule !== undefined;
				const escalation = request.kind === "sandbox_escalation";
				const rules = escalation ? this.escalationRules : this.sessionRules;
				if (always && resolution.rule) rules.add(allowed ? "allow" : "deny", resolution.rule);
				// An escalation's rule is not recorded as a rule: a reopened session would read it as a tool rule.
				const recordedRule = escalation ? undefined : resolution.rule;
				const escalationRule = escalation && always ? ` (rule ${resolution.rule}, this process only)` : "";
				this.audit(session, {
					toolCallId: request.toolCallId,
					toolName: request.toolName,
					decision: resolution.decision,
					by: resolution.by,
					rule: recordedRule,
					reason: `${resolution.reason ?? request.reason}${escalationRule}`,
					requestId: request.id,
					message: resolution.message,
				});
				const resolved: ApprovalEvent = {
					type: "tool_approval_resolved",
					id: request.id,
					toolCallId: request.toolCallId,
					decision: allowed ? "allow" : "deny",
					by: resolution.by,
				};
				if (resolution.rule) resolved.rule = resolution.rule;
				this.host.emit(resolved);
				resolve(allowed ? undefined : block(resolution.text ?? deniedByUser()));
				// A new rule may decide other open requests.
				if (always) this.reconsider();
			};
			this.open.set(request.id, { facts, escalation: request.kind === "sandbox_escalation", settle });
			if (request.timeout !== undefined) {
				const timeout = request.timeout;
				timer = setTimeout(() => settle({ decision: "deny", by: "timeout", text: timedOut(timeout) }), timeout);
			}
			signal.addEventListener("abort", onAbort, { once: true });
			this.host.emit({ type: "tool_approval_request", ...request });
			let answer: Promise<ToolApprovalReply>;
			try {
				answer = Promise.resolve(handler(request, controller.signal));
			} catch (error) {
				answer = Promise.reject(error);
			}
			answer.then(
				(value) => settle(this.fromAnswer(value, request)),
				(error: unknown) => {
					const detail = error instanceof Error ? error.message : String(error);
					settle({ decision: "deny", by: "user", text: `Denied: the approval handler failed (${detail})` });
				},
			);
		});
	}

	/** An answer as a resolution; anything that is not a decision denies. */
	private fromAnswer(answer: unknown, request: ToolApprovalRequest): Resolution {
		const decision =
			typeof answer === "string"
				? answer
				: typeof answer === "object" && answer !== null && "decision" in answer
					? answer.decision
					: undefined;
		if (!isApprovalDecision(decision)) {
			return { decision: "deny", by: "user", text: "Denied: the approval handler gave no decision" };
		}
		if (decision === "allow") return { decision, by: "user" };
		if (decision === "allow_always") return { decision, by: "user", rule: request.alwaysRule };
		const raw = typeof answer === "object" && answer !== null && "message" in answer ? answer.message : undefined;
		const message = typeof raw === "string" && raw.trim() ? raw : undefined;
		const denied: Resolution = { decision, by: "user", text: deniedByUser(message) };
		if (message !== undefined) denied.message = message;
		if (decision === "deny_always") denied.rule = request.alwaysRule;
		return denied;
	}

	/** Judges the open requests again (after a new rule or a mode change); those the policy decides now end. */
	private reconsider(): void {
		const policy = this.policy();
		const escalationPolicy = this.escalationPolicy();
		for (const request of [...this.open.values()]) {
			const verdict = decide(request.escalation ? escalationPolicy : policy, request.facts);
			if (verdict.action === "allow") {
				const rule = verdict.silent ? undefined : verdict.rule;
				const reason = rule ? `allowed by rule ${rule}` : `approval mode ${policy.mode}`;
				request.settle({ decision: "allow", by: "rule", rule, reason });
			} else if (verdict.action === "deny") {
				request.settle({ decision: "deny", by: "rule", rule: verdict.rule, reason: verdict.text, text: verdict.text });
			}
		}
	}

	private policy(): Policy {
		return {
			mode: this.modeValue,
			allow: [...this.permissions.allow, ...this.sessionRules.allow],
			deny: [...this.permissions.deny, ...this.sessionRules.deny],
		};
	}

	private facts(context: ToolApprovalContext): CallFacts {
		const cwd = this.host.cwd();
		return {
			toolName: context.toolCall.name,
			args: context.args,
			readOnly: context.tool.readOnly === true,
			cwd,
			home: homedir(),
			resolvePath: (path) => resolveToolPath(path, cwd),
		};
	}

	private audit(session: Session, record: ApprovalRecord): void {
		const fields: ApprovalRecord = { ...record };
		for (const key of ["rule", "requestId", "message"] as const) if (fields[key] === undefined) delete fields[key];
		this.host.record(() => session.appendToolApproval(fields));
	}
}
