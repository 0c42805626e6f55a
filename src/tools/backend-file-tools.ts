import type { Static, TSchema } from "typebox";
import type { AgentTool, AgentToolResult } from "../agent/types.js";
import { createEditTool, type EditToolDetails, editFileText, editSuccessText } from "./edit.js";
import { throwIfAborted } from "./file-access.js";
import type { TextFileBackend } from "./file-backend.js";
import { withFileMutationQueue } from "./file-mutation-queue.js";
import { resolveToolPath } from "./paths.js";
import { createReadTool, type ReadToolDetails } from "./read.js";
import { DEFAULT_MAX_BYTES, formatSize, truncateHead } from "./truncate.js";
import type { ToolOptions } from "./types.js";
import { createWriteTool } from "./write.js";

/** Images are not text an editor buffers: these are read from the disk whatever the backend. */
const IMAGE_EXTENSION = /\.(png|jpe?g|gif|webp)$/i;

/**
 * The read, write and edit tools over a text file backend (an editor's buffers) instead of the
 * disk: same names, parameters, descriptions and results as the disk tools, so the model cannot
 * tell the difference. Other tools in `tools` are returned as they are.
 */
export function withTextFileBackend(tools: AgentTool[], options: ToolOptions, files: TextFileBackend): AgentTool[] {
	return tools.map((tool) => {
		switch (tool.name) {
			case "read":
				return backendRead(options, files);
			case "write":
				return backendWrite(options, files);
			case "edit":
				return backendEdit(options, files);
			default:
				return tool;
		}
	});
}

/** A copy of `tool` whose execute is replaced (the schema, description and flags stay). */
function replaceExecute<T extends TSchema, D>(tool: AgentTool<T, D>, execute: AgentTool<T, D>["execute"]): AgentTool {
	const replaced: AgentTool<T, D> = { ...tool, execute };
	return replaced;
}

function backendRead(options: ToolOptions, files: TextFileBackend): AgentTool {
	const disk = createReadTool(options);
	return replaceExecute(disk, async (toolCallId, args, signal, onUpdate) => {
		throwIfAborted(signal);
		if (IMAGE_EXTENSION.test(args.path.trim())) return disk.execute(toolCallId, args, signal, onUpdate);
		const text = await files.readTextFile(resolveToolPath(args.path, options.cwd), signal);
		throwIfAborted(signal);
		return selectText(args.path, text, args.offset, args.limit);
	});
}

/** The lines the read tool returns from a whole text, with the notices the disk tool writes. */
function selectText(
	displayPath: string,
	whole: string,
	offset: number | undefined,
	limit: number | undefined,
): AgentToolResult<ReadToolDetails> {
	const text = whole.startsWith("\uFEFF") ? whole.slice(1) : whole;
	const lines = text.split("\n");
	if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
	const totalLines = lines.length;
	const startIndex = (offset ?? 1) - 1;
	if (startIndex >= totalLines) throw new Error(`Offset ${offset} is beyond end of file (${totalLines} lines total)`);
	const endIndex = limit === undefined ? totalLines : Math.min(totalLines, startIndex + limit);
	const startLine = startIndex + 1;
	const truncation = truncateHead(lines.slice(startIndex, endIndex).join("\n"));
	if (truncation.firstLineExceedsLimit) {
		const size = formatSize(Buffer.byteLength(lines[startIndex] ?? "", "utf8"));
		const notice = `[Line ${startLine} is ${size}, over the ${formatSize(DEFAULT_MAX_BYTES)} limit. Use bash: sed -n '${startLine}p' ${displayPath} | head -c ${DEFAULT_MAX_BYTES}]`;
		return { content: [{ type: "text", text: notice }], details: { truncation } };
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
	const content = truncation.content === "" ? (totalLines <= 1 ? "(empty file)" : "(empty lines)") : truncation.content;
	return { content: [{ type: "text", text: content }], details: {} };
}

function backendWrite(options: ToolOptions, files: TextFileBackend): AgentTool {
	return replaceExecute(createWriteTool(options), async (_toolCallId, args, signal) => {
		throwIfAborted(signal);
		const absolutePath = resolveToolPath(args.path, options.cwd);
		await withFileMutationQueue(absolutePath, () => files.writeTextFile(absolutePath, args.content, signal));
		const bytes = Buffer.byteLength(args.content, "utf8");
		return { content: [{ type: "text", text: `Successfully wrote ${bytes} bytes to ${args.path}` }] };
	});
}

function backendEdit(options: ToolOptions, files: TextFileBackend): AgentTool {
	const disk = createEditTool(options);
	type EditArgs = Static<typeof disk.parameters>;
	return replaceExecute(
		disk,
		async (_toolCallId, args: EditArgs, signal): Promise<AgentToolResult<EditToolDetails>> => {
			throwIfAborted(signal);
			const displayPath = args.path;
			const absolutePath = resolveToolPath(displayPath, options.cwd);
			return withFileMutationQueue(absolutePath, async () => {
				const raw = await files.readTextFile(absolutePath, signal);
				throwIfAborted(signal);
				const { updated, before, after } = editFileText(raw, args, displayPath);
				await files.writeTextFile(absolutePath, updated, signal);
				const count = args.edits?.length ?? 1;
				const { buildEditDiff } = await import("./edit-diff.js");
				return {
					content: [{ type: "text", text: editSuccessText(count, displayPath) }],
					details: buildEditDiff(displayPath, before, after),
				};
			});
		},
	);
}
