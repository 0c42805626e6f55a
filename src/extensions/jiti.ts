import { createRequire } from "node:module";

type JitiModule = typeof import("jiti");

/**
 * jiti, loaded when there is an extension to load. Through require, not import(): the CLI's
 * code-cached chunks cannot import() an external package (src/cli/compile-cache.ts).
 */
export function jitiModule(): JitiModule {
	const loaded: JitiModule = createRequire(import.meta.url)("jiti");
	return loaded;
}
