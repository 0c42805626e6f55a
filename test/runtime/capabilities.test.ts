import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import type { Skill } from "../../src/resources/skills.js";
import { Capabilities } from "../../src/runtime/capabilities.js";

function tool(name: string): AgentTool {
	return {
		name,
		description: `the ${name} tool`,
		parameters: Type.Object({}),
		execute: async () => ({ content: [], details: undefined }),
	};
}

const skill: Skill = {
	name: "s",
	description: "a skill",
	filePath: "/a/s/SKILL.md",
	baseDir: "/a/s",
	location: "project",
	disableModelInvocation: false,
};

function counting() {
	const calls = { builtIn: 0, prompt: 0 };
	const sources = {
		builtIn: (cwd: string) => {
			calls.builtIn++;
			return [tool(`read-${cwd}`), tool("bash")];
		},
		systemPrompt: (cwd: string, tools: AgentTool[], skills: Skill[]) => {
			calls.prompt++;
			return `${cwd}: ${tools.map((item) => item.name).join(",")} (${skills.length} skills)`;
		},
	};
	return { calls, capabilities: new Capabilities(sources, "/a") };
}

describe("Capabilities", () => {
	it("lists the tools without making the system prompt (the first get_state needs tools only)", () => {
		const { calls, capabilities } = counting();
		expect(capabilities.tools.map((item) => item.name)).toEqual(["read-/a", "bash"]);
		expect(calls).toEqual({ builtIn: 1, prompt: 0 });
		expect(capabilities.systemPrompt).toBe("/a: read-/a,bash (0 skills)");
		expect(capabilities.systemPrompt).toBe("/a: read-/a,bash (0 skills)");
		expect(calls).toEqual({ builtIn: 1, prompt: 1 });
	});

	it("makes the prompt again from what changed: filter, skills, directory", () => {
		const { calls, capabilities } = counting();
		expect(capabilities.systemPrompt).toContain("read-/a,bash");
		capabilities.setFilter((tools) => tools.filter((item) => item.name === "bash"));
		expect(capabilities.systemPrompt).toBe("/a: bash (0 skills)");
		capabilities.setSkills([skill], "/a");
		expect(capabilities.systemPrompt).toBe("/a: bash (1 skills)");
		capabilities.setCwd("/b");
		capabilities.setFilter((tools) => tools);
		expect(capabilities.systemPrompt).toBe("/b: read-/b,bash (0 skills)");
		expect(calls).toEqual({ builtIn: 2, prompt: 4 });
		capabilities.replaceSystemPrompt("replaced");
		expect(capabilities.systemPrompt).toBe("replaced");
		expect(calls.prompt).toBe(4);
	});
});
