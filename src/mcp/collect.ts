import { resolve } from "node:path";
import { readConfigFile } from "./config-file.js";
import { type McpSetup, projectConfigPath, userConfigPath } from "./setup.js";
import type { McpServerConfig, McpSettings } from "./types.js";

export interface CollectedServers {
	/** Servers to start. */
	start: McpServerConfig[];
	/** Project servers not started because settings do not allow them. */
	skip: McpServerConfig[];
	/** Problems, each naming the file and the field. */
	errors: string[];
}

/**
 * Reads the configuration files of a setup: the user's `mcp.json`, then the `--mcp-config` files
 * (a missing one is an error), then the project's `.mcp.json`. A name defined twice keeps the
 * trusted definition: a `--mcp-config` server replaces the user's, and the project cannot replace
 * either. In-memory servers are added last and replace any of the same name.
 */
export async function collectServers(
	setup: McpSetup,
	settings: McpSettings,
	env: NodeJS.ProcessEnv,
): Promise<CollectedServers> {
	const errors: string[] = [];
	const cliFiles = setup.configFiles.map((file) => resolve(setup.cwd, file));
	const [user, project, ...cli] = await Promise.all([
		readConfigFile(userConfigPath(setup.agentDir), "user", env),
		readConfigFile(projectConfigPath(setup.cwd), "project", env),
		...cliFiles.map((file) => readConfigFile(file, "cli", env)),
	]);
	const byName = new Map<string, McpServerConfig>();
	const addAll = (configs: McpServerConfig[]) => {
		for (const config of configs) byName.set(config.name, config);
	};
	errors.push(...user.errors);
	addAll(user.configs);
	cli.forEach((read, index) => {
		const file = cliFiles[index] as string;
		if (read.missing) errors.push(`${file}: --mcp-config file not found`);
		errors.push(...read.errors);
		addAll(read.configs);
	});
	errors.push(...project.errors);
	for (const config of project.configs) {
		const trusted = byName.get(config.name);
		if (trusted)
			errors.push(
				`${config.file}: server "${config.name}" is also configured in ${trusted.file ?? "memory"}; that one is used`,
			);
		else byName.set(config.name, config);
	}
	addAll(setup.servers ?? []);
	const all = [...byName.values()];
	const allowProject = settings.projectServers === "allow";
	return {
		start: all.filter((config) => config.source !== "project" || allowProject),
		skip: all.filter((config) => config.source === "project" && !allowProject),
		errors,
	};
}
