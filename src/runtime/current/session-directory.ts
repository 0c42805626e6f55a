import { resolve } from "node:path";
import { agentDir as defaultAgentDir, expandHome } from "../../llm/config-paths.js";
import { SettingsStore } from "../../resources/settings.js";
import { sessionDirFor } from "../../session/open.js";

export interface SessionDirectoryOptions {
	/** Default: env ATOMIC_CODING_AGENT_DIR, else ~/.atomic/agent. */
	agentDir?: string;
	env?: NodeJS.ProcessEnv;
	/** `--session-dir`. */
	sessionDir?: string;
	/** `--no-session`: nothing is stored. */
	noSession?: boolean;
}

/** Where sessions are stored for a working directory, as createAgentSession decides it. */
export interface SessionDirectories {
	/** The directory of `cwd`'s sessions; undefined when sessions are not stored. */
	forCwd(cwd: string): string | undefined;
	/** Every directory sessions of any working directory may be in (one flat custom directory, or the per-cwd ones). */
	all(): string[];
}

/**
 * The session directories createAgentSession uses: `--session-dir`, else the environment's
 * ATOMIC_CODING_AGENT_SESSION_DIR, else settings.json's `sessionDir` (relative to the cwd), else
 * `<agentDir>/sessions/<encoded cwd>`.
 */
export function sessionDirectories(options: SessionDirectoryOptions): SessionDirectories {
	const env = options.env ?? process.env;
	const agentDir = options.agentDir ?? defaultAgentDir(env);
	const configured = (cwd: string): string | undefined => {
		const fromEnv = env.ATOMIC_CODING_AGENT_SESSION_DIR?.trim() || undefined;
		const dir = options.sessionDir ?? fromEnv ?? new SettingsStore(agentDir, cwd).get().sessionDir;
		return dir ? resolve(cwd, expandHome(dir)) : undefined;
	};
	return {
		forCwd: (cwd) => (options.noSession ? undefined : sessionDirFor({ cwd, agentDir, sessionDir: configured(cwd) })),
		all: () => {
			if (options.noSession) return [];
			const custom = configured(process.cwd());
			return custom ? [custom] : [resolve(agentDir, "sessions")];
		},
	};
}
