import { type PermissionRule, parseRule } from "../../permissions/index.js";
import type { Session } from "../../session/session.js";
import { isKnownEntry } from "../../session/types.js";

/**
 * The rules a person added to one session by answering `allow_always` (allow rules) or
 * `deny_always` (deny rules). They live in the session's `tool_approval` entries, so a reopened
 * session keeps them; every branch counts (a decision belongs to the session, not to a branch).
 */
export class SessionApprovalRules {
	readonly allow: PermissionRule[] = [];
	readonly deny: PermissionRule[] = [];

	/** The rules recorded in a session's entries. */
	static recordedIn(session: Session): SessionApprovalRules {
		const rules = new SessionApprovalRules();
		for (const entry of session.entries()) {
			if (!isKnownEntry(entry) || entry.type !== "tool_approval" || !entry.rule) continue;
			if (entry.decision === "allow_always") rules.add("allow", entry.rule);
			else if (entry.decision === "deny_always") rules.add("deny", entry.rule);
		}
		return rules;
	}

	/** Adds a rule (once; a rule that cannot be read is ignored). */
	add(kind: "allow" | "deny", text: string): void {
		const list = this[kind];
		if (list.some((rule) => rule.text === text)) return;
		const parsed = parseRule(text);
		if (parsed.ok) list.push(parsed.rule);
	}
}
