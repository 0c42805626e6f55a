import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import type { Skill } from "../../src/resources/skills.js";
import { ToolsAndPrompt } from "../../src/runtime/resources/tools-and-prompt.js";

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
	return { calls, toolsAndPrompt: new ToolsAndPrompt(sources, "/a") };
}

describe("ToolsAndPrompt", () => {
	it("lists the tools without making the system prompt (the first get_state needs tools only)", () => {
		const { calls, toolsAndPrompt } = counting();
		expect(toolsAndPrompt.tools.map((item) => item.name)).toEqual(["read-/a", "bash"]);
		expect(calls).toEqual({ builtIn: 1, prompt: 0 });
		expect(toolsAndPrompt.systemPrompt).toBe("/a: read-/a,bash (0 skills)");
		expect(toolsAndPrompt.systemPrompt).toBe("/a: read-/a,bash (0 skills)");
		expect(calls).toEqual({ builtIn: 1, prompt: 1 });
	});

	it("makes the prompt again from what changed: filter, skills, directory", () => {
		const { calls, toolsAndPrompt } = counting();
		expect(toolsAndPrompt.systemPrompt).toContain("read-/a,bash");
		toolsAndPrompt.setFilter((tools) => tools.filter((item) => item.name === "bash"));
		expect(toolsAndPrompt.systemPrompt).toBe("/a: bash (0 skills)");
		toolsAndPrompt.setSkills([skill], "/a");
		expect(toolsAndPrompt.systemPrompt).toBe("/a: bash (1 skills)");
		toolsAndPrompt.setCwd("/b");
		toolsAndPrompt.setFilter((tools) => tools);
		expect(toolsAndPrompt.systemPrompt).toBe("/b: read-/b,bash (0 skills)");
		expect(calls).toEqual({ builtIn: 2, prompt: 4 });
		toolsAndPrompt.replaceSystemPrompt("replaced");
		expect(toolsAndPrompt.systemPrompt).toBe("replaced");
		expect(calls.prompt).toBe(4);
	});
});
