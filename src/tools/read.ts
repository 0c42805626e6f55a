import { open, readFile } from "node:fs/promises";
import type { AgentTool, AgentToolResult } from "../agent/types.js";
import { Type } from "../llm/schema-builders.js";
import { errorMessage, statExisting, throwIfAborted } from "./file-access.js";
import { resolveToolPath } from "./paths.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, type TruncationResult, truncateHead } from "./truncate.js";
import type { ToolOptions } from "./types.js";

/** Images are sent to the model as they are, so very large ones are refused rather than sent. */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
/** How much of the file is sniffed for image signatures and NUL bytes (as git does for binaries). */
const SNIFF_BYTES = 8192;

const readSchema = Type.Object({
	path: Type.String({ description: "Path to the file to read (relative to the working directory, or absolute)" }),
	offset: Type.Optional(Type.Integer({ minimum: 1, description: "Line number to start reading from (1-based)" })),
	limit: Type.Optional(Type.Integer({ minimum: 1, description: "Maximum number of lines to read" })),
});

export interface ReadToolDetails {
	truncation?: TruncationResult;
}

type ImageMimeType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

function startsWith(bytes: Uint8Array, signature: readonly number[], at = 0): boolean {
	return signature.every((value, index) => bytes[at + index] === value);
}

/** Recognises an image by its first bytes; the file name may lie. */
export function detectImageMimeType(bytes: Uint8Array): ImageMimeType | undefined {
	if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
	if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
	// "GIF87a" or "GIF89a"
	if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38]) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61) {
		return "image/gif";
	}
	// "RIFF" <size> "WEBP"
	if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8))
		return "image/webp";
	return undefined;
}

async function readFirstBytes(absolutePath: string, count: number): Promise<Uint8Array> {
	const handle = await open(absolutePath, "r");
	try {
		const buffer = Buffer.alloc(count);
		const { bytesRead } = await handle.read(buffer, 0, count, 0);
		return buffer.subarray(0, bytesRead);
	} finally {
		await handle.close();
	}
}

/** Splits like truncateHead does: a final newline ends the last line rather than starting another. */
function splitFileLines(text: string): string[] {
	const lines = text.split("\n");
	if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
	return lines;
}

/** The path as a shell word for the hint; quoted (and made absolute) only when it needs it. */
function shellPath(displayPath: string, absolutePath: string): string {
	if (/^[\w./~+-]+$/.test(displayPath)) return displayPath;
	return `'${absolutePath.replaceAll("'", "'\\''")}'`;
}

interface TextSelection {
	displayPath: string;
	absolutePath: string;
	text: string;
	offset: number | undefined;
	limit: number | undefined;
}

function formatTextSelection(selection: TextSelection): AgentToolResult<ReadToolDetails> {
	const { displayPath, text, offset, limit } = selection;
	const lines = splitFileLines(text.startsWith("\uFEFF") ? text.slice(1) : text);
	const totalLines = lines.length;
	const startIndex = (offset ?? 1) - 1;
	if (startIndex >= totalLines) {
		throw new Error(`Offset ${offset} is beyond end of file (${totalLines} lines total)`);
	}
	const endIndex = limit === undefined ? totalLines : Math.min(totalLines, startIndex + limit);
	const startLine = startIndex + 1;
	const truncation = truncateHead(lines.slice(startIndex, endIndex).join("\n"));

	if (truncation.firstLineExceedsLimit) {
		const lineSize = formatSize(Buffer.byteLength(lines[startIndex] ?? "", "utf8"));
		const command = `sed -n '${startLine}p' ${shellPath(displayPath, selection.absolutePath)} | head -c ${DEFAULT_MAX_BYTES}`;
		const text = `[Line ${startLine} is ${lineSize}, over the ${formatSize(DEFAULT_MAX_BYTES)} limit. Use bash: ${command}]`;
		return { content: [{ type: "text", text }], details: { truncation } };
	}
	if (truncation.truncated) {
		const endLine = startLine + truncation.outputLines - 1;
		const limitNote = truncation.truncatedBy === "bytes" ? ` (${formatSize(DEFAULT_MAX_BYTES)} limit)` : "";
		const notice = `[Showing lines ${startLine}-${endLine} of ${totalLines}${limitNote}. Use offset=${endLine + 1} to continue.]`;
		return { content: [{ type: "text", text: `${truncation.content}\n\n${notice}` }], details: { truncation } };
	}
	if (endIndex < totalLines) {
		const notice = `[${totalLines - endIndex} more lines in file. Use offset=${endIndex + 1} to continue.]`;
		return { content: [{ type: "text", text: `${truncation.content}\n\n${notice}` }], details: {} };
	}
	// Providers reject empty text blocks; say what is there instead.
	const content = truncation.content === "" ? (totalLines <= 1 ? "(empty file)" : "(empty lines)") : truncation.content;
	return { content: [{ type: "text", text: content }], details: {} };
}

export function createReadTool(options: ToolOptions): AgentTool<typeof readSchema, ReadToolDetails> {
	return {
		name: "read",
		readOnly: true,
		label: "read",
		description:
			"Read the contents of a file. Supports text files and images (PNG, JPEG, GIF, WebP; sent as attachments). " +
			`Text output is truncated to ${DEFAULT_MAX_LINES} lines or ${DEFAULT_MAX_BYTES / 1024}KB, whichever comes first. ` +
			"Use offset and limit to read large files in parts; continue with offset until you have what you need.",
		parameters: readSchema,
		async execute(_toolCallId, args, signal) {
			throwIfAborted(signal);
			const displayPath = args.path;
			const absolutePath = resolveToolPath(displayPath, options.cwd);
			const stats = await statExisting(absolutePath, displayPath);
			if (stats.isDirectory()) throw new Error(`${displayPath} is a directory (use ls to list it)`);

			let head: Uint8Array;
			try {
				head = await readFirstBytes(absolutePath, SNIFF_BYTES);
			} catch (error) {
				throw new Error(`Cannot read ${displayPath}: ${errorMessage(error)}`, { cause: error });
			}
			throwIfAborted(signal);

			const mimeType = detectImageMimeType(head);
			if (mimeType === undefined && head.includes(0)) {
				throw new Error(
					`Cannot read ${displayPath}: it is a binary file (${formatSize(stats.size)}), ` +
						"not text or a supported image (PNG, JPEG, GIF, WebP).",
				);
			}
			if (mimeType !== undefined && stats.size > MAX_IMAGE_BYTES) {
				const text = `Image file ${displayPath} is ${formatSize(stats.size)}, over the ${formatSize(MAX_IMAGE_BYTES)} limit for images.`;
				return { content: [{ type: "text", text }], details: {}, isError: true };
			}

			let data: Buffer;
			try {
				data = await readFile(absolutePath, { signal });
			} catch (error) {
				throwIfAborted(signal);
				throw new Error(`Cannot read ${displayPath}: ${errorMessage(error)}`, { cause: error });
			}
			throwIfAborted(signal);

			if (mimeType !== undefined) {
				return {
					content: [
						{ type: "text", text: `Read image file [${mimeType}]` },
						{ type: "image", data: data.toString("base64"), mimeType },
					],
					details: {},
				};
			}
			return formatTextSelection({
				displayPath,
				absolutePath,
				text: data.toString("utf8"),
				offset: args.offset,
				limit: args.limit,
			});
		},
	};
}
