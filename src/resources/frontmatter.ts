import { MAX_CONFIG_FILE_BYTES, readRegularFile } from "../platform/regular-file.js";

/** A problem found while loading a skill or prompt template; the caller prints these to stderr. */
export interface ResourceDiagnostic {
	path: string;
	message: string;
}

export interface FrontmatterSplit {
	/** The YAML between the `---` lines; undefined when the text has no frontmatter. */
	yaml: string | undefined;
	body: string;
}

export interface ParsedMarkdown {
	attributes: Record<string, unknown>;
	body: string;
}

const DELIMITER = "---";

/** Removes a BOM and turns CRLF into LF, so the rest of the code sees one line ending. */
function normalize(text: string): string {
	const withoutBom = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
	return withoutBom.replace(/\r\n/g, "\n");
}

/**
 * Separates a leading `---` ... `---` block from the body without parsing it (so no YAML library
 * is needed). A text that does not open with `---`, or never closes it, is all body.
 */
export function splitFrontmatter(text: string): FrontmatterSplit {
	const normalized = normalize(text);
	const lines = normalized.split("\n");
	if (lines[0]?.trimEnd() !== DELIMITER) return { yaml: undefined, body: normalized };
	const closing = lines.findIndex((line, index) => index > 0 && line.trimEnd() === DELIMITER);
	if (closing < 0) return { yaml: undefined, body: normalized };
	return { yaml: lines.slice(1, closing).join("\n"), body: lines.slice(closing + 1).join("\n") };
}

/** Invalid frontmatter; the message names the file, `reason` is the same text without it. */
export class FrontmatterError extends Error {
	constructor(
		readonly filePath: string,
		readonly reason: string,
		options?: ErrorOptions,
	) {
		super(`${filePath}: ${reason}`, options);
		this.name = "FrontmatterError";
	}
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Splits and parses frontmatter. The `yaml` package is imported only when a frontmatter block is
 * present, so starting without skills or templates never loads it.
 * Throws an error naming `filePath` when the YAML is invalid or is not a mapping.
 */
export async function parseFrontmatter(text: string, filePath: string): Promise<ParsedMarkdown> {
	const { yaml, body } = splitFrontmatter(text);
	if (yaml === undefined) return { attributes: {}, body };
	const yamlModule: typeof import("yaml") & { default?: typeof import("yaml") } = await import("yaml");
	// Bundled as CommonJS, the package arrives as the default export of its chunk.
	const parse = yamlModule.default?.parse ?? yamlModule.parse;
	let data: unknown;
	try {
		// logLevel "error": warnings are not printed to the console, errors still throw.
		data = parse(yaml, { logLevel: "error" });
	} catch (error) {
		const reason = error instanceof Error ? error.message : String(error);
		throw new FrontmatterError(filePath, `invalid YAML frontmatter: ${reason}`, { cause: error });
	}
	if (data === null || data === undefined) return { attributes: {}, body };
	if (!isPlainObject(data)) throw new FrontmatterError(filePath, "frontmatter must be a YAML mapping");
	return { attributes: data, body };
}

/** Reads and parses a markdown resource; any failure becomes a diagnostic instead of an exception. */
export async function readMarkdownResource(
	filePath: string,
	diagnostics: ResourceDiagnostic[],
): Promise<ParsedMarkdown | undefined> {
	let text: string;
	try {
		// Only a regular file is read, without blocking: a FIFO among the skills is a diagnostic.
		text = (await readRegularFile(filePath, { maxBytes: MAX_CONFIG_FILE_BYTES })).toString("utf8");
	} catch (error) {
		const reason = error instanceof Error ? error.message : String(error);
		diagnostics.push({ path: filePath, message: `cannot read file: ${reason}` });
		return undefined;
	}
	try {
		return await parseFrontmatter(text, filePath);
	} catch (error) {
		if (!(error instanceof FrontmatterError)) throw error;
		diagnostics.push({ path: filePath, message: error.reason });
		return undefined;
	}
}
