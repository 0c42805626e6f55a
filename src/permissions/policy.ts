import type { ApprovalMode } from "./modes.js";
import { allowRulesCovering, type CallFacts, denyRuleMatches, type PermissionRule } from "./rules.js";
import { deniedByMode, deniedByRule } from "./texts.js";

/** The rules and the mode a call is judged by. */
export interface Policy {
	mode: ApprovalMode;
	allow: readonly PermissionRule[];
	deny: readonly PermissionRule[];
}

/**
 * What the policy says about one call, before anyone is asked. `silent` allows are the mode's
 * own (everything in `auto`, read-only tools otherwise) and leave no audit entry; `rule` names
 * the rule(s) that decided; a deny carries the text the model sees.
 */
export type Verdict =
	| { action: "allow"; silent: true }
	| { action: "allow"; silent: false; rule: string }
	| { action: "deny"; rule?: string; text: string }
	| { action: "ask"; reason: string };

/** A deny rule beats an allow rule; rules beat the mode. */
export function decide(policy: Policy, facts: CallFacts): Verdict {
	const denied = policy.deny.find((rule) => denyRuleMatches(rule, facts));
	if (denied) return { action: "deny", rule: denied.text, text: deniedByRule(denied.text) };
	if (policy.mode === "auto" || facts.readOnly) return { action: "allow", silent: true };
	const allowed = allowRulesCovering(policy.allow, facts);
	if (allowed) return { action: "allow", silent: false, rule: allowed.map((rule) => rule.text).join(", ") };
	if (policy.mode === "read-only") return { action: "deny", text: deniedByMode(policy.mode) };
	return { action: "ask", reason: `approval mode ask: ${facts.toolName} is not read-only` };
}
