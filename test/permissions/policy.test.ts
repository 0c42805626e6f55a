import { describe, expect, it } from "vitest";
import type { ApprovalMode } from "../../src/permissions/modes.js";
import { decide } from "../../src/permissions/policy.js";
import { type CallFacts, type PermissionRule, parseRule } from "../../src/permissions/rules.js";

function rules(...texts: string[]): PermissionRule[] {
	return texts.map((text) => {
		const parsed = parseRule(text);
		if (!parsed.ok) throw new Error(parsed.error);
		return parsed.rule;
	});
}

function call(toolName: string, args: Record<string, unknown>, readOnly = false): CallFacts {
	return { toolName, args, readOnly, cwd: "/p", home: "/h", resolvePath: (path) => `/p/${path}` };
}

const bash = call("bash", { command: "npm test" });
const read = call("read", { path: ".env" }, true);

describe("decide", () => {
	it("follows the mode when no rule matches", () => {
		const verdict = (mode: ApprovalMode, facts: CallFacts) => decide({ mode, allow: [], deny: [] }, facts);
		expect(verdict("auto", bash)).toEqual({ action: "allow", silent: true });
		expect(verdict("ask", bash)).toEqual({ action: "ask", reason: "approval mode ask: bash is not read-only" });
		expect(verdict("read-only", bash)).toEqual({ action: "deny", text: "Denied by approval mode read-only" });
		for (const mode of ["auto", "ask", "read-only"] as const) {
			expect(verdict(mode, read)).toEqual({ action: "allow", silent: true });
		}
	});

	it("lets an allow rule beat the mode, and a deny rule beat both", () => {
		const allow = rules("bash(npm *)");
		expect(decide({ mode: "ask", allow, deny: [] }, bash)).toEqual({
			action: "allow",
			silent: false,
			rule: "bash(npm *)",
		});
		expect(decide({ mode: "read-only", allow, deny: [] }, bash)).toMatchObject({ action: "allow" });
		const deny = rules("bash(npm test)");
		for (const mode of ["auto", "ask", "read-only"] as const) {
			expect(decide({ mode, allow, deny }, bash)).toEqual({
				action: "deny",
				rule: "bash(npm test)",
				text: "Denied by rule bash(npm test)",
			});
		}
		// Read-only tools are not above deny rules.
		expect(decide({ mode: "auto", allow: [], deny: rules("read(.env)") }, read)).toMatchObject({ action: "deny" });
	});
});
