import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expandSkillCommand, loadSkills, type Skill, skillsPromptSection } from "../../src/resources/skills.js";
import { makeTempRoot, skillText, writeTree } from "./temp-tree.js";

let remove: () => void;
let agentDir: string;
let cwd: string;

beforeEach(() => {
	let root: string;
	({ root, remove } = makeTempRoot());
	agentDir = join(root, "agent");
	cwd = join(root, "project");
});
afterEach(() => remove());

describe("skillsPromptSection", () => {
	const skill = (name: string, description: string, hidden = false): Skill => ({
		name,
		description,
		filePath: `/skills/${name}/SKILL.md`,
		baseDir: `/skills/${name}`,
		location: "user",
		disableModelInvocation: hidden,
	});

	it("lists visible skills in an XML block, escaped, after the instruction", () => {
		const section = skillsPromptSection([
			skill("search", 'Find <things> & "stuff"'),
			skill("secret", "Hidden", true),
			skill("lint", "Check code"),
		]);
		expect(section).toBe(
			[
				"Skills are instruction files for specific kinds of tasks. When a task matches a skill's description, read the skill's file (its location) before starting and follow it.",
				"Relative paths inside a skill file are relative to the skill's directory (the directory containing its file); resolve them against it to get absolute paths.",
				"",
				"<available_skills>",
				"  <skill>",
				"    <name>search</name>",
				"    <description>Find &lt;things&gt; &amp; &quot;stuff&quot;</description>",
				"    <location>/skills/search/SKILL.md</location>",
				"  </skill>",
				"  <skill>",
				"    <name>lint</name>",
				"    <description>Check code</description>",
				"    <location>/skills/lint/SKILL.md</location>",
				"  </skill>",
				"</available_skills>",
			].join("\n"),
		);
	});

	it("is undefined when no skill is visible", () => {
		expect(skillsPromptSection([])).toBeUndefined();
		expect(skillsPromptSection([skill("secret", "Hidden", true)])).toBeUndefined();
	});
});

describe("expandSkillCommand", () => {
	beforeEach(() => {
		writeTree(agentDir, {
			"skills/review/SKILL.md": "---\r\ndescription: Review code\r\n---\r\n\r\n# Review\r\nRead checklist.md.\r\n\r\n",
			"skills/manual/SKILL.md": skillText(
				["description: Manual only", "disable-model-invocation: true"],
				"Manual body",
			),
		});
	});

	it("wraps the body in a <skill> block", async () => {
		const { skills } = await loadSkills({ agentDir, cwd });
		const dir = join(agentDir, "skills/review");
		expect(expandSkillCommand("/skill:review", skills)).toBe(
			`<skill name="review" location="${dir}/SKILL.md">\nReferences are relative to ${dir}.\n\n# Review\nRead checklist.md.\n</skill>`,
		);
	});

	it("appends the arguments after a blank line", async () => {
		const { skills } = await loadSkills({ agentDir, cwd });
		const dir = join(agentDir, "skills/review");
		expect(expandSkillCommand("/skill:review  focus on\nerror handling ", skills)).toBe(
			`<skill name="review" location="${dir}/SKILL.md">\nReferences are relative to ${dir}.\n\n# Review\nRead checklist.md.\n</skill>\n\nfocus on\nerror handling`,
		);
	});

	it("expands a skill hidden from the system prompt", async () => {
		const { skills } = await loadSkills({ agentDir, cwd });
		expect(skills.find((skill) => skill.name === "manual")?.disableModelInvocation).toBe(true);
		expect(skillsPromptSection(skills)).not.toContain("manual");
		const dir = join(agentDir, "skills/manual");
		expect(expandSkillCommand("/skill:manual x", skills)).toBe(
			`<skill name="manual" location="${dir}/SKILL.md">\nReferences are relative to ${dir}.\n\nManual body\n</skill>\n\nx`,
		);
	});

	it("returns undefined for unknown skills and other text", async () => {
		const { skills } = await loadSkills({ agentDir, cwd });
		expect(expandSkillCommand("/skill:unknown args", skills)).toBeUndefined();
		expect(expandSkillCommand("/review", skills)).toBeUndefined();
		expect(expandSkillCommand("please /skill:review", skills)).toBeUndefined();
	});
});
