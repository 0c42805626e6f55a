import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
	allowRulesCovering,
	alwaysRuleFor,
	type CallFacts,
	denyRuleMatches,
	type PermissionRule,
	parseRule,
} from "../../src/permissions/rules.js";

const CWD = "/work/project";
const HOME = "/home/me";

function facts(toolName: string, args: Record<string, unknown>): CallFacts {
	return {
		toolName,
		args,
		readOnly: false,
		cwd: CWD,
		home: HOME,
		resolvePath: (path) => (path.startsWith("~/") ? join(HOME, path.slice(2)) : resolve(CWD, path)),
	};
}

function rule(text: string): PermissionRule {
	const parsed = parseRule(text);
	if (!parsed.ok) throw new Error(parsed.error);
	return parsed.rule;
}

const bash = (command: string) => facts("bash", { command });
const write = (path: string) => facts("write", { path, content: "" });
const allows = (texts: string[], call: CallFacts) => allowRulesCovering(texts.map(rule), call)?.map((r) => r.text);

describe("parseRule", () => {
	it("reads tool and tool(pattern), trimming", () => {
		expect(rule("  bash(npm test*) ").text).toBe("bash(npm test*)");
		expect(rule("mcp__github__*").pattern).toBeUndefined();
		expect(rule("bash(echo (hi))").text).toBe("bash(echo (hi))");
	});

	it("explains what is wrong with a rule", () => {
		expect(parseRule("")).toEqual({ ok: false, error: '"" is not a rule: it names no tool' });
		expect(parseRule("(x)")).toEqual({ ok: false, error: '"(x)" is not a rule: it names no tool' });
		expect(parseRule("bash(npm")).toEqual({
			ok: false,
			error: '"bash(npm" is not a rule: the pattern has no closing ")"',
		});
		expect(parseRule("my tool")).toEqual({
			ok: false,
			error: '"my tool" is not a rule: write "tool" or "tool(pattern)"',
		});
		expect(parseRule("grep(src/**)")).toEqual({
			ok: false,
			error: '"grep(src/**)" is not a rule: only bash, read, write and edit take a pattern',
		});
	});
});

describe("bash rules", () => {
	it("an allow rule must cover every command of the line, possibly with several rules", () => {
		expect(allows(["bash(npm *)"], bash("npm test"))).toEqual(["bash(npm *)"]);
		expect(allows(["bash(npm *)"], bash("npm"))).toEqual(["bash(npm *)"]);
		expect(allows(["bash(npm *)"], bash("npmx"))).toBeUndefined();
		expect(allows(["bash(npm *)"], bash("npm test && rm -rf /"))).toBeUndefined();
		expect(allows(["bash(npm *)", "bash(git status)"], bash("npm test; git status"))).toEqual([
			"bash(npm *)",
			"bash(git status)",
		]);
		expect(allows(["bash(echo *)"], bash("echo $(rm -rf /)"))).toBeUndefined();
		expect(allows(["bash(echo *)"], bash(""))).toBeUndefined();
	});

	it("a rule without a pattern covers every call of the tool, even opaque lines", () => {
		expect(allows(["bash"], bash("echo $(date)"))).toEqual(["bash"]);
		expect(allows(["b*"], bash("anything"))).toEqual(["b*"]);
		expect(allows(["write"], bash("x"))).toBeUndefined();
	});

	it("a deny rule matches the line, any command in it, or text inside quotes and substitutions", () => {
		const deny = rule("bash(rm *)");
		for (const line of ["rm -rf x", "echo a && rm -rf x", "sh -c 'rm -rf x'", "echo $(rm x)", "(rm x)"]) {
			expect(denyRuleMatches(deny, bash(line)), line).toBe(true);
		}
		for (const line of ["echo rm", "npm run rm", "grm x"]) expect(denyRuleMatches(deny, bash(line)), line).toBe(false);
	});
});

describe("path rules", () => {
	it("match the path relative to the working directory, normalised", () => {
		expect(denyRuleMatches(rule("write(.env)"), write(".env"))).toBe(true);
		expect(denyRuleMatches(rule("write(.env)"), write("./sub/../.env"))).toBe(true);
		expect(denyRuleMatches(rule("write(.env)"), write(join(CWD, ".env")))).toBe(true);
		expect(denyRuleMatches(rule("write(.env)"), write("sub/.env"))).toBe(false);
		expect(denyRuleMatches(rule("write(**/.env)"), write("sub/.env"))).toBe(true);
		expect(denyRuleMatches(rule("edit(src/**)"), facts("edit", { path: "src/a/b.ts" }))).toBe(true);
		expect(denyRuleMatches(rule("edit(src/**)"), write("src/a.ts"))).toBe(false);
		expect(denyRuleMatches(rule("write(../*)"), write("../sibling.txt"))).toBe(true);
		// A name that starts with two dots is still inside.
		expect(alwaysRuleFor(write("..notes"))).toBe("write(..notes)");
	});

	it("match absolute paths with a leading / and paths under the home directory with ~/", () => {
		expect(denyRuleMatches(rule("write(/etc/**)"), write("/etc/hosts"))).toBe(true);
		expect(denyRuleMatches(rule("write(/etc/**)"), write("etc/hosts"))).toBe(false);
		expect(denyRuleMatches(rule("read(~/.ssh/**)"), facts("read", { path: "~/.ssh/id_rsa" }))).toBe(true);
		expect(denyRuleMatches(rule("read(~/.ssh/**)"), facts("read", { path: "/home/me/.ssh/id_rsa" }))).toBe(true);
		expect(denyRuleMatches(rule("read(~/.ssh/**)"), facts("read", { path: "/root/.ssh/id_rsa" }))).toBe(false);
	});
});

describe("alwaysRuleFor", () => {
	it("is the first word plus * for bash, the path for files, the name otherwise", () => {
		expect(alwaysRuleFor(bash("  npm test --watch && npm run lint"))).toBe("bash(npm *)");
		expect(alwaysRuleFor(bash(""))).toBe("bash()");
		expect(alwaysRuleFor(bash("./a*b.sh x"))).toBe("bash(./a\\*b.sh *)");
		expect(alwaysRuleFor(write("src/../src/a.ts"))).toBe("write(src/a.ts)");
		expect(alwaysRuleFor(write("/tmp/out.txt"))).toBe("write(/tmp/out.txt)");
		expect(alwaysRuleFor(facts("mcp__fs__write", {}))).toBe("mcp__fs__write");
	});

	it("covers the call it was made for", () => {
		for (const call of [bash("npm test"), write("src/a?.ts"), write("/tmp/x"), facts("custom", {})]) {
			expect(allowRulesCovering([rule(alwaysRuleFor(call))], call), alwaysRuleFor(call)).toBeDefined();
		}
		// ... and not a neighbour.
		expect(allowRulesCovering([rule(alwaysRuleFor(write("src/a?.ts")))], write("src/ab.ts"))).toBeUndefined();
	});
});
