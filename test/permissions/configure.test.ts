import { describe, expect, it } from "vitest";
import { type PermissionSetup, resolvePermissions } from "../../src/permissions/configure.js";
import { APPROVAL_MODES } from "../../src/permissions/modes.js";
import { PermissionsSettingsSchema } from "../../src/resources/settings-schema.js";

const USER = "/home/me/.atomic/agent/settings.json";
const PROJECT = "/work/.atomic/settings.json";

function resolve(setup: PermissionSetup) {
	const { permissions, warnings, errors } = resolvePermissions(setup);
	return {
		mode: permissions.mode,
		floor: permissions.floor,
		allow: permissions.allow.map((rule) => rule.text),
		deny: permissions.deny.map((rule) => rule.text),
		timeoutMs: permissions.timeoutMs,
		warnings,
		errors,
	};
}

describe("resolvePermissions", () => {
	it("defaults to auto, no rules, a 60 s timeout", () => {
		expect(resolve({})).toEqual({
			mode: "auto",
			floor: "auto",
			allow: [],
			deny: [],
			timeoutMs: 60000,
			warnings: [],
			errors: [],
		});
	});

	it("takes the user's mode, rules and timeout; the process's mode wins over the user's", () => {
		const user = {
			source: USER,
			block: { mode: "ask" as const, allow: ["bash(npm *)"], deny: ["write(.env)"], timeoutMs: 0 },
		};
		expect(resolve({ user })).toMatchObject({
			mode: "ask",
			allow: ["bash(npm *)"],
			deny: ["write(.env)"],
			timeoutMs: 0,
		});
		expect(resolve({ user, mode: "read-only" })).toMatchObject({ mode: "read-only", warnings: [] });
	});

	it("lets the project make it stricter: a stricter mode, more deny rules, a shorter timeout", () => {
		const result = resolve({
			user: { source: USER, block: { mode: "auto", deny: ["bash(rm *)"] } },
			project: { source: PROJECT, block: { mode: "ask", deny: ["write(*.lock)"], timeoutMs: 5000 } },
		});
		expect(result).toEqual({
			mode: "ask",
			floor: "ask",
			allow: [],
			deny: ["bash(rm *)", "write(*.lock)"],
			timeoutMs: 5000,
			warnings: [],
			errors: [],
		});
	});

	it("ignores, with a warning each, what would loosen it", () => {
		const result = resolve({
			user: { source: USER, block: { mode: "ask", timeoutMs: 1000 } },
			project: { source: PROJECT, block: { mode: "auto", allow: ["bash"], timeoutMs: 0 } },
		});
		expect(result).toMatchObject({ mode: "ask", floor: "auto", allow: [], timeoutMs: 1000 });
		expect(result.warnings).toEqual([
			`${PROJECT}: permissions.mode "auto" is looser than "ask" and is ignored (a project file may only make the policy stricter)`,
			`${PROJECT}: permissions.allow is ignored (a project file may only make the policy stricter)`,
			`${PROJECT}: permissions.timeoutMs 0 is ignored: it is not shorter than 1000`,
		]);
	});

	it("keeps the project's mode as a floor under --approval-mode, saying so", () => {
		const result = resolve({ project: { source: PROJECT, block: { mode: "read-only" } }, mode: "ask" });
		expect(result).toMatchObject({ mode: "read-only", floor: "read-only" });
		expect(result.warnings).toEqual([
			`--approval-mode ask is looser than "read-only", which ${PROJECT} requires: using "read-only"`,
		]);
	});

	it("reports every rule it cannot read, with the file and the index", () => {
		const result = resolve({
			user: { source: USER, block: { allow: ["bash(npm"], deny: ["ok", "grep(x)"] } },
			project: { source: PROJECT, block: { deny: [""] } },
		});
		expect(result.errors).toEqual([
			`${USER}: permissions.allow[0]: "bash(npm" is not a rule: the pattern has no closing ")"`,
			`${USER}: permissions.deny[1]: "grep(x)" is not a rule: only bash, read, write and edit take a pattern`,
			`${PROJECT}: permissions.deny[0]: "" is not a rule: it names no tool`,
		]);
	});

	it("uses the mode names the settings schema accepts", () => {
		expect(PermissionsSettingsSchema.properties.mode.enum).toEqual([...APPROVAL_MODES]);
	});
});
