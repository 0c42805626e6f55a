/** What every built-in tool is created with. */
export interface ToolOptions {
	/** The working directory; relative paths resolve against it. */
	cwd: string;
}
