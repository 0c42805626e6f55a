import { readFile } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { join } from "node:path";

/** The files of the web page (built into dist/web by scripts/build.mjs), by the path they are served at. */
const ASSETS: Record<string, { file: string; type: string }> = {
	"/": { file: "index.html", type: "text/html; charset=utf-8" },
	"/app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
	"/app.css": { file: "app.css", type: "text/css; charset=utf-8" },
};

/** Headers of the page's files: its own scripts and styles only, talking to its own server. */
const HEADERS = {
	"content-security-policy":
		"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
	"x-content-type-options": "nosniff",
	"x-frame-options": "DENY",
	// The log-out form posts with its Origin, which the server checks (a no-referrer page would send "null").
	"referrer-policy": "same-origin",
	"cache-control": "no-cache",
};

export function isWebAsset(path: string): boolean {
	return Object.hasOwn(ASSETS, path);
}

/**
 * Serves one of the page's files from `root` (dist/web). Only the known files are served, so no
 * path a client sends can reach another file. A page that was not built gets 404 saying so.
 */
export async function serveWebAsset(root: string | undefined, path: string, response: ServerResponse): Promise<void> {
	const asset = ASSETS[path];
	if (!asset || root === undefined) {
		response.writeHead(404, { "content-type": "text/plain" });
		response.end("Not found: this server has no web page (build it with npm run build)\n");
		return;
	}
	let body: Buffer;
	try {
		body = await readFile(join(root, asset.file));
	} catch (error) {
		response.writeHead(404, { "content-type": "text/plain" });
		response.end(
			`The web page is not built (npm run build): ${error instanceof Error ? error.message : String(error)}\n`,
		);
		return;
	}
	response.writeHead(200, { ...HEADERS, "content-type": asset.type });
	response.end(body);
}
