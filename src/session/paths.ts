import { join, resolve } from "node:path";
import { agentDir as defaultAgentDir } from "../llm/config-paths.js";

/** `/home/u/proj` -> `--home-u-proj--`: one leading separator dropped, `/`, `\` and `:` become `-`. */
export function encodeCwd(cwd: string): string {
	const absolute = resolve(cwd);
	const trimmed = absolute.startsWith("/") || absolute.startsWith("\\") ? absolute.slice(1) : absolute;
	return `--${trimmed.replace(/[/\\:]/g, "-")}--`;
}

/** `<agentDir>/sessions/<encoded cwd>`. */
export function defaultSessionDir(cwd: string, agentDir: string = defaultAgentDir()): string {
	return join(agentDir, "sessions", encodeCwd(cwd));
}

/** `<timestamp with : and . as ->_<id>.jsonl`. */
export function sessionFileName(timestamp: string, sessionId: string): string {
	return `${timestamp.replace(/[:.]/g, "-")}_${sessionId}.jsonl`;
}

/** `<file>.<now with : and . as ->.<label>.bak`; the label is reduced to `[a-z0-9_-]`. */
export function backupFilePath(sessionFile: string, label: string, now: Date = new Date()): string {
	const safeLabel = label.toLowerCase().replace(/[^a-z0-9_-]/g, "-") || "compact";
	return `${sessionFile}.${now.toISOString().replace(/[:.]/g, "-")}.${safeLabel}.bak`;
}
