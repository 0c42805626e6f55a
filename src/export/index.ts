import { mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { renderSessionHtml, type SessionExportInput } from "./render-html.js";

export { renderSessionHtml, type SessionExportInput };

/** Writes the session's HTML page to `outputPath` (parent folders created) and returns its absolute path. */
export async function exportSessionHtml(input: SessionExportInput, outputPath: string): Promise<string> {
	const path = resolve(outputPath);
	const html = await renderSessionHtml(input);
	await mkdir(dirname(path), { recursive: true });
	await writeFile(path, html, "utf8");
	return path;
}
