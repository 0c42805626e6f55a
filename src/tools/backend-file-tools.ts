import type { Static, TSchema } from "typebox";
import type { AgentTool, AgentToolResult } from "../agent/types.js";
import { createEditTool, type EditToolDetails, editFileText, editSuccessText } from "./edit.js";
import { throwIfAborted } from "./file-access.js";
import type { TextFileBackend } from "./file-backend.js";
import { withFileMutationQueue } from "./file-mutation-queue.js";
import { resolveToolPath } from "./paths.js";
import { createReadTool } from "./read.js";
import { type ReadToolDetails, readResult } from "./read-result.js";
import { checkToolRead, checkToolWrite } from "./sandbox-paths.js";
import { truncateHead } from "./truncate.js";
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
		const absolutePath = resolveToolPath(args.path, options.cwd);
		checkToolRead(options, absolutePath);
		const text = await files.readTextFile(absolutePath, signal);
		throwIfAborted(signal);
		return selectText(args.path, absolutePath, text, args.offset, args.limit);
	});
}

/** The lines the read tool returns from a whole text, with the notices the disk tool writes. */
function selectText(
	displayPath: string,
	absolutePath: string,
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
	return readResult({
		displayPath,
		absolutePath,
		startIndex,
		endIndex,
		totalLines,
		truncation: truncateHead(lines.slice(startIndex, endIndex).join("\n")),
		firstLineBytes: Buffer.byteLength(lines[startIndex] ?? "", "utf8"),
	});
}

function backendWrite(options: ToolOptions, files: TextFileBackend): AgentTool {
	return replaceExecute(createWriteTool(options), async (_toolCallId, args, signal) => {
		throwIfAborted(signal);
		const absolutePath = resolveToolPath(args.path, options.cwd);
		await withFileMutationQueue(absolutePath, () => {
			checkToolWrite(options, absolutePath);
			return files.writeTextFile(absolutePath, args.content, signal);
		});
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
				checkToolWrite(options, absolutePath);
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
