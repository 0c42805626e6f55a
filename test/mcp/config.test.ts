// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are configuration values with ${VAR} references, not JS templates
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { collectServers } from "../../src/mcp/collect.js";
import { readConfigFile } from "../../src/mcp/config-file.js";
import { readMcpSettings } from "../../src/mcp/settings.js";
import { mayHaveServers } from "../../src/mcp/setup.js";
import { DEFAULT_MCP_SETTINGS } from "../../src/mcp/types.js";

function tree() {
	const root = mkdtempSync(join(tmpdir(), "atomic-mcp-config-"));
	const agentDir = join(root, "agent");
	const cwd = join(root, "project");
	mkdirSync(agentDir);
	mkdirSync(cwd);
	return { root, agentDir, cwd };
}

function writeJson(path: string, value: unknown): string {
	writeFileSync(path, JSON.stringify(value));
	return path;
}

const env = { TOKEN: "tk-1", HOST: "mcp.example.test", SECRET: "abc" };

describe("MCP configuration files", () => {
	it("reads stdio and remote entries, expanding $VAR and ${VAR} in env, headers and url", async () => {
		const { root } = tree();
		const file = writeJson(join(root, "mcp.json"), {
			mcpServers: {
				fs: {
					command: "npx",
					args: ["-y", "server-filesystem", "$HOME"],
					env: { KEY: "$SECRET", BOTH: "${SECRET}-$$" },
				},
				web: { type: "http", url: "https://${HOST}/mcp", headers: { Authorization: "Bearer $TOKEN" } },
				events: { type: "sse", url: "https://$HOST/sse" },
				bare: { url: "https://$HOST/bare" },
				local: { command: "./server", cwd: "tools" },
			},
			otherToolsKey: true,
		});
		expect(await readConfigFile(file, "user", env)).toEqual({
			errors: [],
			configs: [
				{
					name: "fs",
					source: "user",
					file,
					transport: "stdio",
					command: "npx",
					// Arguments are passed as written.
					args: ["-y", "server-filesystem", "$HOME"],
					env: { KEY: "abc", BOTH: "abc-$" },
				},
				{
					name: "web",
					source: "user",
					file,
					transport: "http",
					url: "https://mcp.example.test/mcp",
					headers: { Authorization: "Bearer tk-1" },
				},
				{ name: "events", source: "user", file, transport: "sse", url: "https://mcp.example.test/sse", headers: {} },
				{ name: "bare", source: "user", file, transport: "http", url: "https://mcp.example.test/bare", headers: {} },
				{
					name: "local",
					source: "user",
					file,
					transport: "stdio",
					command: "./server",
					args: [],
					env: {},
					cwd: join(root, "tools"),
				},
			],
		});
	});

	it("names the file and the field of each bad entry, and still loads the others", async () => {
		const { root } = tree();
		const file = writeJson(join(root, "mcp.json"), {
			mcpServers: {
				good: { command: "server" },
				"bad name": { command: "server" },
				"dots.too": { command: "server" },
				args: { command: "server", args: ["ok", 3] },
				kind: { type: "websocket", url: "ws://x" },
				nourl: { type: "sse" },
				empty: { command: "" },
				number: 5,
				headers: { type: "http", url: "https://x", headers: { A: 1 } },
				badurl: { type: "http", url: "not a url" },
			},
		});
		const read = await readConfigFile(file, "user", env);
		expect(read.configs.map((config) => config.name)).toEqual(["good"]);
		expect(read.errors).toEqual([
			`${file}: mcpServers.bad name: a server name may contain only letters, digits, "_" and "-"`,
			`${file}: mcpServers.dots.too: a server name may contain only letters, digits, "_" and "-"`,
			`${file}: mcpServers.args.args[1] must be a string`,
			`${file}: mcpServers.kind.type must be "stdio", "http" or "sse"`,
			`${file}: mcpServers.nourl needs "url"`,
			`${file}: mcpServers.empty.command must not be empty`,
			`${file}: mcpServers.number must be an object`,
			`${file}: mcpServers.headers.headers.A must be a string`,
			`${file}: mcpServers.badurl.url is not a URL: "not a url"`,
		]);
	});

	it("rejects a whole file that is not JSON, not an object, has no mcpServers, or is not a regular file", async () => {
		const { root } = tree();
		const notJson = join(root, "broken.json");
		writeFileSync(notJson, "{ nope");
		const expectation = '(expected {"mcpServers": {"<name>": {...}}})';
		expect((await readConfigFile(notJson, "user", env)).errors[0]).toMatch(`${notJson}: not valid JSON`);
		expect((await readConfigFile(writeJson(join(root, "array.json"), []), "user", env)).errors).toEqual([
			`${join(root, "array.json")}: the file must be a JSON object ${expectation}`,
		]);
		expect((await readConfigFile(writeJson(join(root, "none.json"), { servers: {} }), "user", env)).errors).toEqual([
			`${join(root, "none.json")}: the file needs "mcpServers" ${expectation}`,
		]);
		expect(await readConfigFile(root, "user", env)).toEqual({
			configs: [],
			errors: [`${root}: cannot be read (not a regular file)`],
		});
		expect(await readConfigFile(join(root, "missing.json"), "user", env)).toEqual({
			configs: [],
			errors: [],
			missing: true,
		});
	});
});

describe("where MCP servers come from", () => {
	const setupOf = (dirs: ReturnType<typeof tree>, configFiles: string[] = []) => ({
		enabled: true,
		agentDir: dirs.agentDir,
		cwd: dirs.cwd,
		configFiles,
	});

	it("skips the project's .mcp.json servers by default and starts them when the user allows it", async () => {
		const dirs = tree();
		writeJson(join(dirs.agentDir, "mcp.json"), { mcpServers: { mine: { command: "mine" } } });
		writeJson(join(dirs.cwd, ".mcp.json"), { mcpServers: { repo: { command: "repo" } } });
		const denied = await collectServers(setupOf(dirs), DEFAULT_MCP_SETTINGS, env);
		expect(denied.start.map((config) => `${config.source}:${config.name}`)).toEqual(["user:mine"]);
		expect(denied.skip.map((config) => `${config.source}:${config.name}`)).toEqual(["project:repo"]);
		const allowed = await collectServers(setupOf(dirs), { ...DEFAULT_MCP_SETTINGS, projectServers: "allow" }, env);
		expect(allowed.start.map((config) => `${config.source}:${config.name}`)).toEqual(["user:mine", "project:repo"]);
		expect(allowed.skip).toEqual([]);
	});

	it("lets --mcp-config replace the user's server of the same name, and never lets the project replace either", async () => {
		const dirs = tree();
		writeJson(join(dirs.agentDir, "mcp.json"), {
			mcpServers: { fs: { command: "user-fs" }, git: { command: "user-git" } },
		});
		const cli = writeJson(join(dirs.cwd, "extra.json"), { mcpServers: { fs: { command: "cli-fs" } } });
		const project = writeJson(join(dirs.cwd, ".mcp.json"), { mcpServers: { git: { command: "repo-git" } } });
		const found = await collectServers(setupOf(dirs, ["extra.json", "missing.json"]), DEFAULT_MCP_SETTINGS, env);
		expect(found.start.map((config) => (config.transport === "stdio" ? config.command : config.url))).toEqual([
			"cli-fs",
			"user-git",
		]);
		expect(found.start[0]?.file).toBe(cli);
		expect(found.skip).toEqual([]);
		expect(found.errors).toEqual([
			`${join(dirs.cwd, "missing.json")}: --mcp-config file not found`,
			`${project}: server "git" is also configured in ${join(dirs.agentDir, "mcp.json")}; that one is used`,
		]);
	});

	it("says no server can be configured without files, or with --no-mcp", () => {
		const dirs = tree();
		expect(mayHaveServers(setupOf(dirs))).toBe(false);
		writeJson(join(dirs.cwd, ".mcp.json"), { mcpServers: {} });
		expect(mayHaveServers(setupOf(dirs))).toBe(true);
		expect(mayHaveServers({ ...setupOf(dirs), enabled: false })).toBe(false);
		expect(mayHaveServers({ ...setupOf(tree()), configFiles: ["x.json"] })).toBe(true);
	});
});

describe("MCP settings", () => {
	it("applies defaults and reads projectServers from the user's settings only", () => {
		expect(readMcpSettings(undefined, undefined)).toEqual({ settings: DEFAULT_MCP_SETTINGS, errors: [] });
		expect(
			readMcpSettings(
				{ startupTimeoutMs: 500 },
				{ startupTimeoutMs: 800, toolTimeoutMs: 900, projectServers: "allow" },
			),
		).toEqual({
			settings: { projectServers: "deny", startupTimeoutMs: 800, toolTimeoutMs: 900 },
			errors: [],
		});
		expect(readMcpSettings({ projectServers: "allow" }, { projectServers: "allow" }).settings.projectServers).toBe(
			"allow",
		);
	});

	it("reports a bad value once and uses the defaults", () => {
		expect(readMcpSettings({ toolTimeoutMs: -1 }, { toolTimeoutMs: -1 })).toEqual({
			settings: DEFAULT_MCP_SETTINGS,
			errors: ["settings.json: mcp.toolTimeoutMs must be >= 1; the defaults are used"],
		});
		expect(readMcpSettings({ projectServers: "yes" }, {}).errors).toEqual([
			'settings.json: mcp.projectServers must be "allow" or "deny"; the defaults are used',
		]);
	});
});
