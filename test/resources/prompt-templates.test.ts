// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are template bodies with ${...} placeholders, not JS templates
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
	expandPromptTemplate,
	loadPromptTemplates,
	type PromptTemplate,
	parseTemplateArguments,
	substituteArguments,
} from "../../src/resources/prompt-templates.js";
import { makeTempRoot, writeTree } from "./temp-tree.js";

let root: string;
let remove: () => void;
let agentDir: string;
let cwd: string;

beforeEach(() => {
	({ root, remove } = makeTempRoot());
	agentDir = join(root, "agent");
	cwd = join(root, "project");
});
afterEach(() => remove());

describe("loadPromptTemplates", () => {
	it("finds templates in the agent dir, the project and explicit paths, non-recursively", async () => {
		writeTree(root, {
			"agent/prompts/explain.md": "---\ndescription: Explain code\nargument-hint: <file>\n---\nExplain $1\n",
			"agent/prompts/nested/ignored.md": "not loaded: below the prompts dir",
			"agent/prompts/notes.txt": "not a template",
			"project/.atomic/prompts/fix-tests.md": "Fix the failing tests in $@",
			"elsewhere/one-off.md": "---\ndescription: One off\n---\nBody",
		});
		const { templates, diagnostics } = await loadPromptTemplates({
			agentDir,
			cwd,
			explicitPaths: ["../elsewhere/one-off.md"],
		});
		expect(diagnostics).toEqual([]);
		expect(templates).toEqual([
			{
				name: "one-off",
				description: "One off",
				filePath: join(root, "elsewhere/one-off.md"),
				location: "path",
				body: "Body",
			},
			{
				name: "fix-tests",
				description: "Fix the failing tests in $@",
				filePath: join(cwd, ".atomic/prompts/fix-tests.md"),
				location: "project",
				body: "Fix the failing tests in $@",
			},
			{
				name: "explain",
				description: "Explain code",
				filePath: join(agentDir, "prompts/explain.md"),
				location: "user",
				body: "Explain $1",
				argumentHint: "<file>",
			},
		]);
	});

	it("lets a project template override a user template of the same name, and reports it", async () => {
		writeTree(root, {
			"agent/prompts/review.md": "User review",
			"project/.atomic/prompts/review.md": "Project review",
		});
		const { templates, diagnostics } = await loadPromptTemplates({ agentDir, cwd });
		expect(templates.map((template) => [template.name, template.body])).toEqual([["review", "Project review"]]);
		expect(diagnostics).toEqual([
			{
				path: join(agentDir, "prompts/review.md"),
				message: `prompt template "review" not loaded: overridden by ${join(cwd, ".atomic/prompts/review.md")}`,
			},
		]);
	});

	it("skips discovery when disabled but keeps explicit paths; reports missing paths and bad YAML", async () => {
		writeTree(root, {
			"agent/prompts/user.md": "User",
			"extra/a.md": "A",
			"extra/b.md": "---\ndescription: [broken\n---\nB",
		});
		const { templates, diagnostics } = await loadPromptTemplates({
			agentDir,
			cwd,
			enabled: false,
			explicitPaths: [join(root, "extra"), join(root, "missing.md")],
		});
		expect(templates.map((template) => template.name)).toEqual(["a"]);
		expect(diagnostics.map((diagnostic) => [diagnostic.path, diagnostic.message.slice(0, 26)])).toEqual([
			[join(root, "missing.md"), "prompt template path does "],
			[join(root, "extra/b.md"), "invalid YAML frontmatter: "],
		]);
	});

	it("falls back to the first non-empty body line, cut at 60 characters, for the description", async () => {
		const line = "Refactor the module so that every function has a single responsibility and tests";
		writeTree(agentDir, {
			"prompts/long.md": `---\nargument-hint: "[path]"\n---\n\n   \n  ${line}\nSecond line\n`,
			"prompts/short.md": "\n\nShort one\n",
			"prompts/empty.md": "",
		});
		const { templates } = await loadPromptTemplates({ agentDir, cwd });
		expect(templates.map((template) => [template.name, template.description, template.argumentHint])).toEqual([
			["empty", "", undefined],
			["long", "Refactor the module so that every function has a single resp", "[path]"],
			["short", "Short one", undefined],
		]);
	});
});

describe("parseTemplateArguments", () => {
	it.each([
		["a b\tc", ["a", "b", "c"]],
		["  spaced   out  ", ["spaced", "out"]],
		[`"two words" 'single quoted' plain`, ["two words", "single quoted", "plain"]],
		[`pre"mid dle"post`, ["premid dlepost"]],
		[`"it's" 'say "hi"'`, ["it's", 'say "hi"']],
		[`a "" b`, ["a", "", "b"]],
		[`back\\slash "no \\"escape`, ["back\\slash", "no \\escape"]],
		["", []],
	])("parses %j", (text, expected) => {
		expect(parseTemplateArguments(text)).toEqual(expected);
	});
});

describe("substituteArguments", () => {
	const args = ["one", "two words", "three"];
	it.each([
		["$1 and $2 and $3", "one and two words and three"],
		["missing: [$4] [$9]", "missing: [] []"],
		["all: $@", "all: one two words three"],
		["all: $ARGUMENTS", "all: one two words three"],
		["${1:-first} ${4:-fallback}", "one fallback"],
		["${@:-none} ${ARGUMENTS:-none}", "one two words three one two words three"],
		["${@:2}", "two words three"],
		["${@:2:1}", "two words"],
		["${@:1:2}|${@:3:5}|${@:4}|${@:2:0}", "one two words|three||"],
		["literal: $x $HOME $0 ${foo} $ ${1} $$", "literal: $x $HOME $0 ${foo} $ ${1} $$"],
		["cost: $10", "cost: "],
	])("fills %j", (body, expected) => {
		expect(substituteArguments(body, args)).toBe(expected);
	});

	it("uses defaults when arguments are missing or empty", () => {
		expect(substituteArguments("${1:-d1} ${2:-d2} ${@:-all} ${ARGUMENTS:-args}", [])).toBe("d1 d2 all args");
		expect(substituteArguments("[${1:-empty}] [$1]", [""])).toBe("[empty] []");
	});

	it("does not rescan substituted text", () => {
		expect(substituteArguments("$1 / $2", ["$2", "${@:1}"])).toBe("$2 / ${@:1}");
		expect(substituteArguments("$@", ["$1", "$ARGUMENTS"])).toBe("$1 $ARGUMENTS");
	});
});

describe("expandPromptTemplate", () => {
	const template = (name: string, body: string): PromptTemplate => ({
		name,
		description: name,
		filePath: `/prompts/${name}.md`,
		location: "user",
		body,
	});
	const templates = [template("review", "Review $1 focusing on ${2:-style}. All: $ARGUMENTS"), template("plain", "Hi")];

	it("expands a known template with quoted arguments", () => {
		expect(expandPromptTemplate(`/review "src/a b.ts" 'error handling'`, templates)).toBe(
			"Review src/a b.ts focusing on error handling. All: src/a b.ts error handling",
		);
		expect(expandPromptTemplate("/review x.ts", templates)).toBe("Review x.ts focusing on style. All: x.ts");
		expect(expandPromptTemplate("/plain", templates)).toBe("Hi");
	});

	it("returns undefined for unknown templates and text that is not a command", () => {
		expect(expandPromptTemplate("/unknown a b", templates)).toBeUndefined();
		expect(expandPromptTemplate("review x", templates)).toBeUndefined();
		expect(expandPromptTemplate(" /review x", templates)).toBeUndefined();
	});
});
