import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { type AgentDirs, startAgent, transcript, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

function write(path: string, content: string): void {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, content);
}

interface Paths {
	review: string;
	deploy: string;
	skill: string;
}

/** A user prompt template, a project prompt template and a user skill. */
function writeResources(dirs: AgentDirs): Paths {
	const paths = {
		review: join(dirs.agentDir, "prompts", "review.md"),
		deploy: join(dirs.work, ".atomic", "prompts", "deploy.md"),
		skill: join(dirs.agentDir, "skills", "lint-check", "SKILL.md"),
	};
	// `${2:-style}` is template syntax for the prompt file, not for JavaScript.
	const defaulted = ["$", "{2:-style}"].join("");
	write(paths.review, `---\ndescription: Review a file\n---\nPlease review $1 carefully, focusing on ${defaulted}.\n`);
	write(paths.deploy, "Deploy the service to $@ now.\n");
	write(
		paths.skill,
		"---\nname: lint-check\ndescription: Run the linter and fix findings\n---\nRun `npm run lint` first.\n",
	);
	return paths;
}

async function startWithResources() {
	let paths: Paths | undefined;
	const started = await startAgent(harness.server, {
		prepare: (dirs) => {
			paths = writeResources(dirs);
		},
	});
	if (!paths) throw new Error("resources were not written");
	return { ...started, paths };
}

/** pi's sourceInfo of a file found in the agent dir or the project: found where it lies. */
function local(path: string, scope: "user" | "project") {
	return { path, source: "local", scope, origin: "top-level", baseDir: dirname(path) };
}

describe("get_commands", () => {
	it("lists prompt templates, then skills", async () => {
		const { agent, paths } = await startWithResources();
		expect(await agent.request({ id: "gc", type: "get_commands" })).toEqual({
			id: "gc",
			type: "response",
			command: "get_commands",
			success: true,
			data: {
				commands: [
					{
						name: "deploy",
						description: "Deploy the service to $@ now.",
						source: "prompt",
						location: "project",
						path: paths.deploy,
						sourceInfo: local(paths.deploy, "project"),
					},
					{
						name: "review",
						description: "Review a file",
						source: "prompt",
						location: "user",
						path: paths.review,
						sourceInfo: local(paths.review, "user"),
					},
					{
						name: "skill:lint-check",
						description: "Run the linter and fix findings",
						source: "skill",
						location: "user",
						path: paths.skill,
						sourceInfo: local(paths.skill, "user"),
					},
				],
			},
		});
	});

	it("lists nothing without templates or skills", async () => {
		const { agent } = await startAgent(harness.server);
		expect(await agent.ok({ type: "get_commands" })).toEqual({ commands: [] });
	});
});

describe("input expansion", () => {
	it("expands /template with arguments before the model sees it", async () => {
		const { agent } = await startWithResources();
		const { start } = await agent.prompt('/review "src/main.ts"');
		expect(transcript(harness.server.requests[0])).toEqual([
			"user: Please review src/main.ts carefully, focusing on style.",
		]);
		expect(agent.since(start, "message_start")[0]?.message).toMatchObject({
			role: "user",
			content: [{ type: "text", text: "Please review src/main.ts carefully, focusing on style." }],
		});
		await agent.prompt("/deploy staging eu-west");
		expect(transcript(harness.server.requests[1]).at(-1)).toBe("user: Deploy the service to staging eu-west now.");
	});

	it("expands /skill:name into a skill block followed by the arguments", async () => {
		const { agent, paths } = await startWithResources();
		await agent.prompt("/skill:lint-check only src/");
		expect(transcript(harness.server.requests[0])).toEqual([
			[
				`user: <skill name="lint-check" location="${paths.skill}">`,
				`References are relative to ${dirname(paths.skill)}.`,
				"",
				"Run `npm run lint` first.",
				"</skill>",
				"",
				"only src/",
			].join("\n"),
		]);
	});

	it("expands queued steering too, and leaves unknown slash text alone", async () => {
		const { agent } = await startWithResources();
		await agent.ok({ type: "steer", message: "/review notes.md tests" });
		await agent.prompt("/unknown thing");
		expect(transcript(harness.server.requests[0])).toEqual([
			"user: /unknown thing",
			"user: Please review notes.md carefully, focusing on tests.",
		]);
	});
});
