import type { AgentTool } from "../agent/types.js";
import type { Sandbox } from "../sandbox/index.js";
import { withTextFileBackend } from "./backend-file-tools.js";
import { createBashTool } from "./bash.js";
import { createEditTool } from "./edit.js";
import type { ShellRunner, TextFileBackend } from "./file-backend.js";
import { createFindTool } from "./find.js";
import { createGrepTool } from "./grep.js";
import { createLsTool } from "./ls.js";
import { createReadTool } from "./read.js";
import { createWriteTool } from "./write.js";

export type { ShellRunner, TextFileBackend } from "./file-backend.js";
export { runShell, type ShellRunOptions, type ShellRunResult } from "./shell.js";
export { killAllShells, liveShellCount } from "./shell-processes.js";
export {
	createBashTool,
	createEditTool,
	createFindTool,
	createGrepTool,
	createLsTool,
	createReadTool,
	createWriteTool,
};

/** The built-in tools, in the order the system prompt lists them. */
export const BUILT_IN_TOOL_NAMES = ["read", "bash", "edit", "write", "grep", "find", "ls"] as const;
export type BuiltInToolName = (typeof BUILT_IN_TOOL_NAMES)[number];

export interface BuiltInToolOptions {
	cwd: string;
	shellPath?: string;
	/** Where bash writes full outputs that were truncated. */
	spillDir?: string;
	env?: NodeJS.ProcessEnv;
	/** Read, write and edit go through this instead of the disk (an editor's buffers). */
	files?: TextFileBackend;
	/** Bash runs its commands through this instead of a local shell (an editor's terminal). */
	runShell?: ShellRunner;
	/** How long one grep or find may run (default 30 s). */
	searchTimeLimitMs?: number;
	/** The session's sandbox (commands run in it; file tools follow its path rules). */
	sandbox?: Sandbox;
}

/** Creates the named built-in tools (all of them by default). Unknown names throw. */
export function createBuiltInTools(
	options: BuiltInToolOptions,
	names: readonly string[] = BUILT_IN_TOOL_NAMES,
): AgentTool[] {
	const tools = names.map((name): AgentTool => {
		switch (name) {
			case "read":
				return createReadTool(options);
			case "bash":
				return createBashTool(options);
			case "edit":
				return createEditTool(options);
			case "write":
				return createWriteTool(options);
			case "grep":
				return createGrepTool(options);
			case "find":
				return createFindTool(options);
			case "ls":
				return createLsTool(options);
			default:
				throw new Error(`Unknown tool "${name}" (built-in tools: ${BUILT_IN_TOOL_NAMES.join(", ")})`);
		}
	});
	return options.files ? withTextFileBackend(tools, options, options.files) : tools;
}
