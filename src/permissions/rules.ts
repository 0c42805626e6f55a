import { isAbsolute, relative, sep } from "node:path";
import { parseCommandLine } from "./command-line.js";
import { compileGlob, escapeGlob, type Glob, matchGlob } from "./glob.js";

/** Tools whose rules take a glob over the command line. */
const COMMAND_TOOLS: ReadonlySet<string> = new Set(["bash"]);
/** Tools whose rules take a glob over the path argument. */
const PATH_TOOLS: ReadonlySet<string> = new Set(["read", "write", "edit"]);

/**
 * One `"tool"` or `"tool(pattern)"` rule. The tool part is a glob over the tool name
 * (`mcp__github__*`); a pattern is allowed only after `bash` (a glob over each command of the
 * line; `npm *` also matches a bare `npm`) and `read`, `write`, `edit` (a glob over the path
 * relative to the working directory, or absolute when the pattern starts with `/`, or under the
 * home directory when it starts with `~/`).
 */
export interface PermissionRule {
	/** The rule as written (trimmed): what messages and the audit name. */
	readonly text: string;
	readonly tool: Glob;
	/** Absent: the rule covers every call of the tool. */
	readonly pattern?: RulePattern;
}

type RulePattern = { kind: "command"; globs: Glob[] } | { kind: "path"; anchor: "cwd" | "root" | "home"; glob: Glob };

export type RuleParse = { ok: true; rule: PermissionRule } | { ok: false; error: string };

export function parseRule(input: string): RuleParse {
	const text = input.trim();
	const open = text.indexOf("(");
	const name = open < 0 ? text : text.slice(0, open).trim();
	if (!name) return { ok: false, error: `"${text}" is not a rule: it names no tool` };
	if (/[\s)]/.test(name)) return { ok: false, error: `"${text}" is not a rule: write "tool" or "tool(pattern)"` };
	const tool = compileGlob(name, false);
	if (open < 0) return { ok: true, rule: { text, tool } };
	if (!text.endsWith(")")) return { ok: false, error: `"${text}" is not a rule: the pattern has no closing ")"` };
	const pattern = text.slice(open + 1, -1).trim();
	if (COMMAND_TOOLS.has(name)) {
		const globs = [compileGlob(pattern, false)];
		// `npm *` also covers the bare word.
		if (pattern.endsWith(" *")) globs.push(compileGlob(pattern.slice(0, -2).trimEnd(), false));
		return { ok: true, rule: { text, tool, pattern: { kind: "command", globs } } };
	}
	if (PATH_TOOLS.has(name)) {
		const anchor = pattern.startsWith("/") ? "root" : pattern.startsWith("~/") ? "home" : "cwd";
		const body = anchor === "home" ? pattern.slice(2) : anchor === "root" ? pattern.slice(1) : pattern;
		return { ok: true, rule: { text, tool, pattern: { kind: "path", anchor, glob: compileGlob(body, true) } } };
	}
	return { ok: false, error: `"${text}" is not a rule: only bash, read, write and edit take a pattern` };
}

/** What rules know about one tool call. */
export interface CallFacts {
	toolName: string;
	args: Record<string, unknown>;
	/** The tool never changes anything (`AgentTool.readOnly`). */
	readOnly: boolean;
	cwd: string;
	home: string;
	/** Turns a path argument into an absolute path, the way the tools do (`~`, relative to cwd). */
	resolvePath(path: string): string;
}

/** A path relative to `base` with `/` separators, or undefined when it is outside `base`. */
function within(base: string, absolute: string): string | undefined {
	const path = relative(base, absolute);
	if (path === ".." || path.startsWith(`..${sep}`) || isAbsolute(path)) return undefined;
	return sep === "/" ? path : path.split(sep).join("/");
}

function pathSubject(anchor: "cwd" | "root" | "home", facts: CallFacts, absolute: string): string | undefined {
	if (anchor === "root") return absolute.slice(1).split(sep).join("/");
	if (anchor === "home") return within(facts.home, absolute);
	const path = relative(facts.cwd, absolute);
	return sep === "/" ? path : path.split(sep).join("/");
}

function pathArgument(facts: CallFacts): string | undefined {
	return typeof facts.args.path === "string" ? facts.resolvePath(facts.args.path) : undefined;
}

function commandArgument(facts: CallFacts): string | undefined {
	return typeof facts.args.command === "string" ? facts.args.command : undefined;
}

function subjectMatches(pattern: RulePattern, facts: CallFacts, mode: "allow" | "deny"): boolean {
	if (pattern.kind === "path") {
		const absolute = pathArgument(facts);
		const subject = absolute === undefined ? undefined : pathSubject(pattern.anchor, facts, absolute);
		return subject !== undefined && matchGlob(pattern.glob, subject);
	}
	const line = commandArgument(facts);
	if (line === undefined) return false;
	const matches = (text: string) => pattern.globs.some((glob) => matchGlob(glob, text));
	const parsed = parseCommandLine(line);
	if (mode === "deny") return parsed.denyCandidates.some(matches);
	return !parsed.opaque && parsed.commands.length > 0 && parsed.commands.every(matches);
}

/** Whether a deny rule matches the call. */
export function denyRuleMatches(rule: PermissionRule, facts: CallFacts): boolean {
	if (!matchGlob(rule.tool, facts.toolName)) return false;
	return rule.pattern === undefined || subjectMatches(rule.pattern, facts, "deny");
}

/**
 * The allow rules that together cover the call, or undefined. A bash line needs every simple
 * command covered, possibly by different rules.
 */
export function allowRulesCovering(rules: readonly PermissionRule[], facts: CallFacts): PermissionRule[] | undefined {
	const applicable = rules.filter((rule) => matchGlob(rule.tool, facts.toolName));
	const whole = applicable.find((rule) => rule.pattern === undefined);
	if (whole) return [whole];
	const line = commandArgument(facts);
	if (facts.toolName !== "bash" || line === undefined) {
		const rule = applicable.find((candidate) => candidate.pattern && subjectMatches(candidate.pattern, facts, "allow"));
		return rule ? [rule] : undefined;
	}
	const parsed = parseCommandLine(line);
	if (parsed.opaque || parsed.commands.length === 0) return undefined;
	const used = new Set<PermissionRule>();
	for (const command of parsed.commands) {
		const rule = applicable.find(
			(candidate) =>
				candidate.pattern?.kind === "command" && candidate.pattern.globs.some((glob) => matchGlob(glob, command)),
		);
		if (!rule) return undefined;
		used.add(rule);
	}
	return [...used];
}

/**
 * The rule `allow_always` (as an allow rule) or `deny_always` (as a deny rule) adds for a call: the tool and, for bash, the first word of the command
 * plus ` *`; for read, write and edit, that path (relative to the working directory when inside
 * it, else absolute); for other tools, the tool's name.
 */
export function alwaysRuleFor(facts: CallFacts): string {
	const name = escapeGlob(facts.toolName);
	if (COMMAND_TOOLS.has(facts.toolName)) {
		const line = commandArgument(facts) ?? "";
		const word = parseCommandLine(line).commands[0]?.split(/\s+/, 1)[0] ?? "";
		return word ? `${name}(${escapeGlob(word)} *)` : `${name}()`;
	}
	if (PATH_TOOLS.has(facts.toolName)) {
		const absolute = pathArgument(facts);
		if (absolute === undefined) return name;
		const inside = within(facts.cwd, absolute);
		return `${name}(${escapeGlob(inside ?? absolute)})`;
	}
	return name;
}
