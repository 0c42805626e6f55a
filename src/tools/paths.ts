import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

/** Resolves a path a model gave against the working directory; `~` means the home directory. */
export function resolveToolPath(path: string, cwd: string): string {
	const trimmed = path.trim();
	if (trimmed === "~") return homedir();
	if (trimmed.startsWith("~/")) return join(homedir(), trimmed.slice(2));
	return isAbsolute(trimmed) ? trimmed : resolve(cwd, trimmed);
}
