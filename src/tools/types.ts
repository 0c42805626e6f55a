import type { Sandbox } from "../sandbox/index.js";

/** What every built-in tool is created with. */
export interface ToolOptions {
	/** The working directory; relative paths resolve against it. */
	cwd: string;
	/** The session's sandbox: when on, paths it hides are refused and writes stay in its writable roots. */
	sandbox?: Sandbox;
}

/** What grep and find are created with. */
export interface SearchToolOptions extends ToolOptions {
	/** How long one search may run before it stops with what it found (default 30 s). */
	searchTimeLimitMs?: number;
}
