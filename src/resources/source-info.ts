import type { ResourceLocation } from "./resource-paths.js";

/** Whose a resource is: the user's agent dir, the project, or this run only (a CLI path). */
export type SourceScope = "user" | "project" | "temporary";
/** How a resource was installed; Atomic has no packages, so everything is top-level. */
export type SourceOrigin = "package" | "top-level";

/** Where a command comes from (pi's `sourceInfo`): the file and how it was found. */
export interface SourceInfo {
	path: string;
	/** "local" for the agent dir and the project, "cli" for a path given on the command line. */
	source: string;
	scope: SourceScope;
	origin: SourceOrigin;
	/** The directory the resource was found in (absent for command-line paths of extensions). */
	baseDir?: string;
}

/** The source info of a file found at `location` (`baseDir` is left out when undefined). */
export function sourceInfoFor(path: string, location: ResourceLocation, baseDir?: string): SourceInfo {
	const info: SourceInfo =
		location === "path"
			? { path, source: "cli", scope: "temporary", origin: "top-level" }
			: { path, source: "local", scope: location, origin: "top-level" };
	if (baseDir !== undefined) info.baseDir = baseDir;
	return info;
}
