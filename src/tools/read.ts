import type { FileHandle } from "node:fs/promises";
import type { AgentTool, AgentToolResult } from "../agent/types.js";
import { Type } from "../llm/schema-builders.js";
import { errorMessage, openToolFile, throwIfAborted } from "./file-access.js";
import { resolveToolPath } from "./paths.js";
import { type ReadToolDetails, readResult } from "./read-result.js";
import { type LineSelection, selectLines } from "./read-selection.js";
import { checkToolRead } from "./sandbox-paths.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, type TruncationResult, truncateHead } from "./truncate.js";

export type { ReadToolDetails } from "./read-result.js";

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

/** An error whose message is already the whole answer (not wrapped in "Cannot read ..."). */
class ReadRefusal extends Error {}

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

/** Up to `count` bytes from `position`, fewer at the end of the file. */
async function readBytes(handle: FileHandle, count: number, position: number): Promise<Buffer> {
	const buffer = Buffer.alloc(count);
	let length = 0;
	while (length < count) {
		const { bytesRead } = await handle.read(buffer, length, count - length, position + length);
		if (bytesRead === 0) break;
		length += bytesRead;
	}
	return buffer.subarray(0, length);
}

interface TextSelection {
	displayPath: string;
	absolutePath: string;
	offset: number | undefined;
	limit: number | undefined;
}

/** The selected lines as `truncateHead` sees them, with the totals of the whole selection. */
function truncateSelection(selection: LineSelection): TruncationResult {
	const truncation = truncateHead(selection.kept.join("\n"));
	if (selection.complete) return truncation;
	// Only part of the selection was held (it is over the limits): report the totals of all of it.
	return { ...truncation, totalLines: selection.selectedLines, totalBytes: selection.selectedBytes };
}

async function readTextSelection(
	handle: FileHandle,
	request: TextSelection,
	signal: AbortSignal | undefined,
): Promise<AgentToolResult<ReadToolDetails>> {
	const { displayPath, offset, limit } = request;
	const startIndex = (offset ?? 1) - 1;
	const selection = await selectLines(handle, {
		startIndex,
		limit,
		maxLines: DEFAULT_MAX_LINES,
		maxBytes: DEFAULT_MAX_BYTES,
		signal,
	});
	const totalLines = selection.totalLines;
	if (startIndex >= totalLines) {
		throw new ReadRefusal(`Offset ${offset} is beyond end of file (${totalLines} lines total)`);
	}
	const endIndex = limit === undefined ? totalLines : Math.min(totalLines, startIndex + limit);
	return readResult({
		displayPath,
		absolutePath: request.absolutePath,
		startIndex,
		endIndex,
		totalLines,
		truncation: truncateSelection(selection),
		firstLineBytes: selection.firstLineBytes,
	});
}

/** Reads an opened regular file: an image whole (bounded), text by the requested lines only. */
async function readOpenFile(
	handle: FileHandle,
	request: TextSelection,
	signal: AbortSignal | undefined,
): Promise<AgentToolResult<ReadToolDetails>> {
	const { displayPath } = request;
	const { size } = await handle.stat();
	const head = await readBytes(handle, SNIFF_BYTES, 0);
	throwIfAborted(signal);
	const mimeType = detectImageMimeType(head);
	if (mimeType === undefined && head.includes(0)) {
		throw new ReadRefusal(
			`Cannot read ${displayPath}: it is a binary file (${formatSize(size)}), ` +
				"not text or a supported image (PNG, JPEG, GIF, WebP).",
		);
	}
	if (mimeType === undefined) return readTextSelection(handle, request, signal);
	if (size > MAX_IMAGE_BYTES) {
		const text = `Image file ${displayPath} is ${formatSize(size)}, over the ${formatSize(MAX_IMAGE_BYTES)} limit for images.`;
		return { content: [{ type: "text", text }], details: {}, isError: true };
	}
	// One byte more than the limit shows a file that grew past it since the stat.
	const data = await readBytes(handle, MAX_IMAGE_BYTES + 1, 0);
	throwIfAborted(signal);
	if (data.length > MAX_IMAGE_BYTES) {
		const text = `Image file ${displayPath} is over the ${formatSize(MAX_IMAGE_BYTES)} limit for images.`;
		return { content: [{ type: "text", text }], details: {}, isError: true };
	}
	return {
		content: [
			{ type: "text", text: `Read image file [${mimeType}]` },
			{ type: "image", data: data.toString("base64"), mimeType },
		],
		details: {},
	};
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
			checkToolRead(options, absolutePath);
			const handle = await openToolFile(absolutePath, displayPath, "read", {
				verb: "read",
				directoryMessage: `${displayPath} is a directory (use ls to list it)`,
			});
			try {
				return await readOpenFile(
					handle,
					{ displayPath, absolutePath, offset: args.offset, limit: args.limit },
					signal,
				);
			} catch (error) {
				throwIfAborted(signal);
				if (error instanceof ReadRefusal) throw error;
				throw new Error(`Cannot read ${displayPath}: ${errorMessage(error)}`, { cause: error });
			} finally {
				await handle.close();
			}
		},
	};
}
