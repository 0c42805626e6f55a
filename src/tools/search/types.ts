/** The grep tool's arguments, as the search worker receives them. */
export interface GrepJobArguments {
	pattern: string;
	path?: string;
	glob?: string;
	ignoreCase?: boolean;
	literal?: boolean;
	context?: number;
	limit?: number;
	/** Absolute paths the sandbox hides: never searched. */
	hidden?: string[];
}

/** The find tool's arguments, as the search worker receives them. */
export interface FindJobArguments {
	pattern: string;
	path?: string;
	limit?: number;
	/** Absolute paths the sandbox hides: never listed. */
	hidden?: string[];
}

/** One search, whose cost the model controls (pattern, globs, the tree and its ignore files). */
export type SearchJob =
	| { kind: "grep"; cwd: string; args: GrepJobArguments; defaultLimit: number }
	| { kind: "find"; cwd: string; args: FindJobArguments; defaultLimit: number };

/** What a finished search reports besides its lines. */
export interface SearchSummary {
	/** More results exist than the limit let through. */
	limitReached: boolean;
	/** grep: some lines were cut to the maximum line length. */
	linesTruncated: boolean;
	/** grep: binary files whose unshown part matched (their paths, at most a few). */
	binaryMatches?: string[];
	/** grep: how many binary files matched in all. */
	binaryMatchCount?: number;
	/** grep: a line longer than the scan's maximum was searched in its first part only. */
	longLines?: boolean;
	/** Folders with more entries than a walk reads (walker.ts): only their first ones were searched. */
	foldersCut?: string[];
	/** Files and folders that could not be read (`path (CODE)`, the first few), and how many in all. */
	unreadable?: string[];
	unreadableCount?: number;
}
