import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** Expands a leading `~` to the home directory. */
export function expandHome(path: string, home: string = homedir()): string {
	if (path === "~") return home;
	if (path.startsWith("~/")) return join(home, path.slice(2));
	return path;
}

/** The agent config dir: env ATOMIC_CODING_AGENT_DIR, else ~/.atomic/agent. */
export function agentDir(env: NodeJS.ProcessEnv = process.env): string {
	const override = env.ATOMIC_CODING_AGENT_DIR?.trim();
	if (override) return resolve(expandHome(override));
	return join(homedir(), ".atomic", "agent");
}
