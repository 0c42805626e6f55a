import { dirname, resolve } from "node:path";
import { ensureDirectory } from "../platform/ensure-directory.js";
import { writeRegularFile } from "../platform/regular-file.js";
import { renderSessionHtml, type SessionExportInput } from "./render-html.js";

export { renderSessionHtml, type SessionExportInput };

/**
 * Writes the session's HTML page to `outputPath` (parent folders created) and returns its absolute
 * path. Only a regular file is written: a FIFO, socket or device there is refused before it is
 * opened, and a folder that cannot be created (under `/proc/<gone pid>/`, below a file) is an error.
 */
export async function exportSessionHtml(input: SessionExportInput, outputPath: string): Promise<string> {
	const path = resolve(outputPath);
	const html = await renderSessionHtml(input);
	await ensureDirectory(dirname(path));
	await writeRegularFile(path, html);
	return path;
}
