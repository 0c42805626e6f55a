import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadSkills, type Skill } from "../../src/resources/skills.js";
import { makeTempRoot, skillText, writeTree } from "./temp-tree.js";

let root: string;
let remove: () => void;
let agentDir: string;
let repo: string;
let cwd: string;

beforeEach(() => {
	({ root, remove } = makeTempRoot());
	agentDir = join(root, "agent");
	repo = join(root, "repo");
	cwd = join(repo, "packages", "app");
	mkdirSync(join(repo, ".git"), { recursive: true });
	mkdirSync(cwd, { recursive: true });
});
afterEach(() => remove());

const describedAs = (name: string, extra: string[] = []) =>
	skillText([`name: ${name}`, `description: ${name} skill`, ...extra]);
const names = (skills: Skill[]) => skills.map((skill) => skill.name);

describe("loadSkills: discovery", () => {
	it("finds skills in the cwd, its ancestors up to the git root and the agent dir, not above the root", async () => {
		writeTree(root, {
			"agent/skills/user-skill/SKILL.md": describedAs("user-skill"),
			"repo/.atomic/skills/root-skill/SKILL.md": describedAs("root-skill"),
			"repo/packages/.atomic/skills/middle-skill/SKILL.md": describedAs("middle-skill"),
			"repo/packages/app/.atomic/skills/near-skill/SKILL.md": describedAs("near-skill"),
			".atomic/skills/above-skill/SKILL.md": describedAs("above-skill"),
		});
		const { skills, diagnostics } = await loadSkills({ agentDir, cwd });
		expect(diagnostics).toEqual([]);
		expect(skills).toEqual([
			{
				name: "near-skill",
				description: "near-skill skill",
				filePath: join(cwd, ".atomic/skills/near-skill/SKILL.md"),
				baseDir: join(cwd, ".atomic/skills/near-skill"),
				location: "project",
				disableModelInvocation: false,
			},
			expect.objectContaining({ name: "middle-skill", location: "project" }),
			expect.objectContaining({ name: "root-skill", location: "project" }),
			{
				name: "user-skill",
				description: "user-skill skill",
				filePath: join(agentDir, "skills/user-skill/SKILL.md"),
				baseDir: join(agentDir, "skills/user-skill"),
				location: "user",
				disableModelInvocation: false,
			},
		]);
	});

	it("looks only in the cwd when there is no git root", async () => {
		const plainCwd = join(root, "plain", "sub");
		writeTree(root, {
			"plain/.atomic/skills/parent-skill/SKILL.md": describedAs("parent-skill"),
			"plain/sub/.atomic/skills/here-skill/SKILL.md": describedAs("here-skill"),
		});
		const { skills } = await loadSkills({ agentDir, cwd: plainCwd });
		expect(names(skills)).toEqual(["here-skill"]);
	});

	it("loads root-level .md files of the skills dirs as skills named after the file", async () => {
		writeTree(root, {
			"agent/skills/quick-note.md": skillText(["description: Quick note"]),
			"repo/packages/app/.atomic/skills/local-fix.md": skillText(["description: Local fix"]),
			"agent/skills/notes/readme.md": "not a skill: below the root and not SKILL.md",
		});
		const { skills, diagnostics } = await loadSkills({ agentDir, cwd });
		expect(diagnostics).toEqual([]);
		expect(skills.map(({ name, filePath, baseDir, location }) => ({ name, filePath, baseDir, location }))).toEqual([
			{
				name: "local-fix",
				filePath: join(cwd, ".atomic/skills/local-fix.md"),
				baseDir: join(cwd, ".atomic/skills"),
				location: "project",
			},
			{
				name: "quick-note",
				filePath: join(agentDir, "skills/quick-note.md"),
				baseDir: join(agentDir, "skills"),
				location: "user",
			},
		]);
	});

	it("finds SKILL.md at any depth, skipping node_modules, .git and the insides of a skill", async () => {
		writeTree(agentDir, {
			"skills/group/nested/deep/SKILL.md": skillText(["description: Deep"]),
			"skills/group/node_modules/pkg/SKILL.md": skillText(["description: In node_modules"]),
			"skills/.git/hooks/SKILL.md": skillText(["description: In .git"]),
			"skills/outer/SKILL.md": skillText(["description: Outer"]),
			"skills/outer/examples/inner/SKILL.md": skillText(["description: Inner"]),
		});
		const { skills, diagnostics } = await loadSkills({ agentDir, cwd });
		expect(diagnostics).toEqual([]);
		expect(skills.map((skill) => [skill.name, skill.filePath])).toEqual([
			["deep", join(agentDir, "skills/group/nested/deep/SKILL.md")],
			["outer", join(agentDir, "skills/outer/SKILL.md")],
		]);
	});

	it("loads explicit paths (a SKILL.md file or its directory) even with discovery disabled", async () => {
		writeTree(root, {
			"extra/one/SKILL.md": describedAs("one"),
			"extra/two/SKILL.md": describedAs("two"),
			"extra/empty/readme.txt": "no skill here",
			"agent/skills/user-skill/SKILL.md": describedAs("user-skill"),
			"repo/packages/app/.atomic/skills/near-skill/SKILL.md": describedAs("near-skill"),
		});
		const { skills, diagnostics } = await loadSkills({
			agentDir,
			cwd,
			enabled: false,
			explicitPaths: [join(root, "extra/one/SKILL.md"), "../../../extra/two", join(root, "extra/empty"), "nope"],
		});
		expect(skills.map((skill) => [skill.name, skill.location, skill.filePath])).toEqual([
			["one", "path", join(root, "extra/one/SKILL.md")],
			["two", "path", join(root, "extra/two/SKILL.md")],
		]);
		expect(diagnostics).toEqual([
			{ path: join(root, "extra/empty"), message: "skill directory has no SKILL.md" },
			{ path: join(cwd, "nope"), message: "skill path does not exist" },
		]);
	});

	it("loads nothing from empty or missing directories", async () => {
		expect(await loadSkills({ agentDir: join(root, "missing"), cwd })).toEqual({ skills: [], diagnostics: [] });
	});
});

describe("loadSkills: validation", () => {
	it("defaults the name to the directory name", async () => {
		writeTree(agentDir, { "skills/pdf-tools/SKILL.md": skillText(["description: PDF tools"]) });
		const { skills, diagnostics } = await loadSkills({ agentDir, cwd });
		expect(names(skills)).toEqual(["pdf-tools"]);
		expect(diagnostics).toEqual([]);
	});

	it("warns about invalid names but still loads the skill", async () => {
		const path = join(agentDir, "skills/bad/SKILL.md");
		writeTree(agentDir, { "skills/bad/SKILL.md": skillText(["name: Bad--Name", "description: Bad"]) });
		const { skills, diagnostics } = await loadSkills({ agentDir, cwd });
		expect(names(skills)).toEqual(["Bad--Name"]);
		expect(diagnostics).toEqual([
			{ path, message: 'warning: skill name "Bad--Name" may contain only lowercase letters, digits and hyphens' },
			{ path, message: 'warning: skill name "Bad--Name" differs from "bad"' },
		]);
	});

	it.each([
		["-lead", "must not start or end with a hyphen"],
		["trail-", "must not start or end with a hyphen"],
		["dou--ble", "must not contain consecutive hyphens"],
		["x".repeat(65), "must be 1-64 characters"],
	])("reports the name %s", async (name, problem) => {
		writeTree(agentDir, { [`skills/${name}/SKILL.md`]: describedAs(name) });
		const { skills, diagnostics } = await loadSkills({ agentDir, cwd });
		expect(names(skills)).toEqual([name]);
		expect(diagnostics.map((diagnostic) => diagnostic.message)).toEqual([`warning: skill name "${name}" ${problem}`]);
	});

	it("skips a skill without a description and reports it", async () => {
		writeTree(agentDir, {
			"skills/no-description/SKILL.md": skillText(["name: no-description"]),
			"skills/no-frontmatter/SKILL.md": "Just a body",
			"skills/fine/SKILL.md": describedAs("fine"),
		});
		const { skills, diagnostics } = await loadSkills({ agentDir, cwd });
		expect(names(skills)).toEqual(["fine"]);
		expect(diagnostics).toEqual([
			{
				path: join(agentDir, "skills/no-description/SKILL.md"),
				message: "skill not loaded: frontmatter has no description",
			},
			{
				path: join(agentDir, "skills/no-frontmatter/SKILL.md"),
				message: "skill not loaded: frontmatter has no description",
			},
		]);
	});

	it("warns about an over-long description and skips invalid YAML", async () => {
		writeTree(agentDir, {
			"skills/long/SKILL.md": skillText([`description: ${"d".repeat(1025)}`, "unknown-field: ignored"]),
			"skills/broken/SKILL.md": "---\ndescription: [oops\n---\nBody",
		});
		const { skills, diagnostics } = await loadSkills({ agentDir, cwd });
		expect(names(skills)).toEqual(["long"]);
		expect(diagnostics.map((diagnostic) => [diagnostic.path, diagnostic.message.slice(0, 30)])).toEqual([
			[join(agentDir, "skills/broken/SKILL.md"), "invalid YAML frontmatter: Flow"],
			[join(agentDir, "skills/long/SKILL.md"), "warning: description is longer"],
		]);
	});

	it("keeps the first skill of a name by precedence and reports the others", async () => {
		writeTree(root, {
			"extra/shared/SKILL.md": skillText(["description: From path"]),
			"repo/packages/app/.atomic/skills/shared/SKILL.md": skillText(["description: From cwd"]),
			"repo/.atomic/skills/shared/SKILL.md": skillText(["description: From git root"]),
			"agent/skills/shared/SKILL.md": skillText(["description: From user"]),
		});
		const explicit = join(root, "extra/shared");
		const withPath = await loadSkills({ agentDir, cwd, explicitPaths: [explicit] });
		expect(withPath.skills.map((skill) => skill.description)).toEqual(["From path"]);
		expect(withPath.diagnostics).toEqual(
			[
				join(cwd, ".atomic/skills/shared/SKILL.md"),
				join(repo, ".atomic/skills/shared/SKILL.md"),
				join(agentDir, "skills/shared/SKILL.md"),
			].map((path) => ({
				path,
				message: `skill "shared" not loaded: the name is already used by ${join(explicit, "SKILL.md")}`,
			})),
		);
		const withoutPath = await loadSkills({ agentDir, cwd });
		expect(withoutPath.skills.map((skill) => skill.description)).toEqual(["From cwd"]);
	});

	it("does not count one file reached twice as a collision", async () => {
		writeTree(agentDir, { "skills/solo/SKILL.md": describedAs("solo") });
		const { skills, diagnostics } = await loadSkills({
			agentDir,
			cwd,
			explicitPaths: [join(agentDir, "skills/solo")],
		});
		expect(skills.map((skill) => skill.location)).toEqual(["path"]);
		expect(diagnostics).toEqual([]);
	});
});
