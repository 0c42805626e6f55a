import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { expandInput, listCommands } from "../../src/resources/commands.js";
import { loadPromptTemplates, type PromptTemplate } from "../../src/resources/prompt-templates.js";
import { loadSkills, type Skill } from "../../src/resources/skills.js";
import { makeTempRoot, skillText, writeTree } from "./temp-tree.js";

// Counts how often the `yaml` package is loaded: the factory runs once, on the first import.
const yamlLoads = vi.hoisted(() => ({ count: 0 }));
vi.mock("yaml", async (importOriginal) => {
	yamlLoads.count += 1;
	return importOriginal();
});

let root: string;
let remove: () => void;
beforeEach(() => {
	({ root, remove } = makeTempRoot());
});
afterEach(() => remove());

// Runs first: no other test in this file may have loaded yaml yet.
describe("lazy yaml", () => {
	it("is not loaded by importing the modules or loading from empty dirs, only by a frontmatter file", async () => {
		const agentDir = join(root, "agent");
		const cwd = join(root, "project");
		writeTree(root, { "project/.atomic/skills/.keep": "", "agent/prompts/plain.md": "No frontmatter here" });
		await loadSkills({ agentDir, cwd });
		const { templates } = await loadPromptTemplates({ agentDir, cwd });
		expect(templates.map((template) => template.description)).toEqual(["No frontmatter here"]);
		expect(yamlLoads.count).toBe(0);

		writeTree(root, { "agent/skills/demo/SKILL.md": skillText(["description: Demo"]) });
		const { skills } = await loadSkills({ agentDir, cwd });
		expect(skills.map((skill) => skill.name)).toEqual(["demo"]);
		expect(yamlLoads.count).toBe(1);
	});
});

const template = (name: string, body: string, location: PromptTemplate["location"]): PromptTemplate => ({
	name,
	description: `${name} template`,
	filePath: `/prompts/${name}.md`,
	location,
	body,
});

const USER_EXTENSION = (path: string) =>
	({ path, source: "local", scope: "user", origin: "top-level", baseDir: "/agent/extensions" }) as const;
const CLI_EXTENSION = (path: string) => ({ path, source: "cli", scope: "temporary", origin: "top-level" }) as const;

describe("listCommands", () => {
	it("lists extension commands, then templates, then skills, with their fields", () => {
		const skills: Skill[] = [
			{
				name: "brave-search",
				description: "Web search",
				filePath: "/agent/skills/brave-search/SKILL.md",
				baseDir: "/agent/skills/brave-search",
				location: "user",
				disableModelInvocation: true,
			},
		];
		const commands = listCommands({
			skills,
			templates: [template("fix-tests", "Fix", "project"), template("one-off", "Once", "path")],
			extensionCommands: [
				{
					name: "session-name",
					description: "Set the session name",
					path: "/agent/extensions/session.ts",
					sourceInfo: USER_EXTENSION("/agent/extensions/session.ts"),
				},
				{ name: "bare", path: "/tmp/bare.ts", sourceInfo: CLI_EXTENSION("/tmp/bare.ts") },
			],
		});
		expect(commands).toStrictEqual([
			{
				name: "session-name",
				description: "Set the session name",
				source: "extension",
				path: "/agent/extensions/session.ts",
				sourceInfo: USER_EXTENSION("/agent/extensions/session.ts"),
			},
			{ name: "bare", source: "extension", path: "/tmp/bare.ts", sourceInfo: CLI_EXTENSION("/tmp/bare.ts") },
			{
				name: "fix-tests",
				description: "fix-tests template",
				source: "prompt",
				location: "project",
				path: "/prompts/fix-tests.md",
				sourceInfo: {
					path: "/prompts/fix-tests.md",
					source: "local",
					scope: "project",
					origin: "top-level",
					baseDir: "/prompts",
				},
			},
			{
				name: "one-off",
				description: "one-off template",
				source: "prompt",
				location: "path",
				path: "/prompts/one-off.md",
				sourceInfo: {
					path: "/prompts/one-off.md",
					source: "cli",
					scope: "temporary",
					origin: "top-level",
					baseDir: "/prompts",
				},
			},
			{
				name: "skill:brave-search",
				description: "Web search",
				source: "skill",
				location: "user",
				path: "/agent/skills/brave-search/SKILL.md",
				sourceInfo: {
					path: "/agent/skills/brave-search/SKILL.md",
					source: "local",
					scope: "user",
					origin: "top-level",
					baseDir: "/agent/skills/brave-search",
				},
			},
		]);
	});
});

describe("expandInput", () => {
	it("expands skills first, then templates, and leaves other text unchanged", async () => {
		const agentDir = join(root, "agent");
		writeTree(agentDir, { "skills/greet/SKILL.md": skillText(["description: Greet"], "Say hello.") });
		const { skills } = await loadSkills({ agentDir, cwd: root });
		// A template literally named "skill:greet" must not win over the skill.
		const templates = [template("skill:greet", "template", "user"), template("greet", "Greet $1", "user")];
		const dir = join(agentDir, "skills/greet");
		expect(expandInput("/skill:greet Bob", { skills, templates })).toBe(
			`<skill name="greet" location="${dir}/SKILL.md">\nReferences are relative to ${dir}.\n\nSay hello.\n</skill>\n\nBob`,
		);
		expect(expandInput("/greet Bob", { skills, templates })).toBe("Greet Bob");
		expect(expandInput("/unknown Bob", { skills, templates })).toBe("/unknown Bob");
		expect(expandInput("/skill:missing", { skills, templates: [] })).toBe("/skill:missing");
		expect(expandInput("Hello $1", { skills, templates })).toBe("Hello $1");
	});
});
