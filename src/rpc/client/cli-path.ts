import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE_NAME = "atomic-agent";

/**
 * `dist/cli.js` of the package this module belongs to, found by walking up to its package.json.
 * Works from the sources (src/rpc/client/) and from the bundle (dist/ or dist/chunks/).
 */
export function defaultCliPath(moduleUrl: string = import.meta.url): string {
	const start = dirname(fileURLToPath(moduleUrl));
	for (let directory = start; ; directory = dirname(directory)) {
		const manifest = join(directory, "package.json");
		if (existsSync(manifest) && packageName(manifest) === PACKAGE_NAME) return join(directory, "dist", "cli.js");
		if (dirname(directory) === directory) {
			throw new Error(`Cannot find the ${PACKAGE_NAME} package above ${start}: pass cliPath or command`);
		}
	}
}

function packageName(manifest: string): string | undefined {
	let parsed: unknown;
	try {
		parsed = JSON.parse(readFileSync(manifest, "utf8"));
	} catch (error) {
		// An unreadable or invalid package.json belongs to some other package: keep walking up.
		if (error instanceof SyntaxError || (error instanceof Error && "code" in error)) return undefined;
		throw error;
	}
	if (typeof parsed !== "object" || parsed === null || !("name" in parsed)) return undefined;
	return typeof parsed.name === "string" ? parsed.name : undefined;
}
