import type { FileHandle } from "node:fs/promises";
import type { Static } from "typebox";
import type { AgentTool } from "../agent/types.js";
import { Type } from "../llm/schema-builders.js";
import type { EditDiff } from "./edit-diff.js";
import { LfView, toLf, withEndingsOf } from "./edit-endings.js";
import { findUniqueMatch } from "./edit-match.js";
import { errorMessage, openToolFile, throwIfAborted } from "./file-access.js";
import { withFileMutationQueue } from "./file-mutation-queue.js";
import { resolveToolPath } from "./paths.js";
import { checkToolWrite } from "./sandbox-paths.js";
import { formatSize } from "./truncate.js";
import type { ToolOptions } from "./types.js";

/** Files are edited in memory; larger ones are left to bash (sed, patch). */
export const MAX_EDIT_BYTES = 16 * 1024 * 1024;
/**
 * Forgiving matching (whitespace, quotes, dashes) builds a normalised copy of the file on the main
 * thread, in time that grows with the file: larger files are matched exactly only.
 */
export const TOLERANT_MATCH_MAX_CHARS = 2 * 1024 * 1024;

const replacementSchema = Type.Object({
	oldText: Type.String({ description: "Exact text to find (must occur exactly once)" }),
	newText: Type.String({ description: "Text to replace it with" }),
});

const editSchema = Type.Object({
	path: Type.String({ description: "Path to the file to edit (relative to the working directory, or absolute)" }),
	oldText: Type.Optional(Type.String({ description: "Exact text to find and replace (must occur exactly once)" })),
	newText: Type.Optional(Type.String({ description: "New text to replace the old text with" })),
	edits: Type.Optional(
		Type.Array(replacementSchema, {
			description: "Several replacements in one file, applied in order (instead of oldText/newText)",
		}),
	),
});

export type EditToolDetails = EditDiff;

/** An error whose message is already the whole answer (not wrapped in "Cannot read ..."). */
class EditRefusal extends Error {}

interface PlannedEdit {
	oldText: string;
	newText: string;
	/** Names the edit in errors when several were given, e.g. "edits[1]". */
	label: string | undefined;
}

/** Turns the two accepted argument shapes into one list, rejecting mixed or incomplete ones. */
function planEdits(args: Static<typeof editSchema>): PlannedEdit[] {
	const hasSingle = args.oldText !== undefined || args.newText !== undefined;
	if (args.edits !== undefined) {
		if (hasSingle) throw new Error("Use either oldText/newText or edits, not both.");
		if (args.edits.length === 0) throw new Error("edits must contain at least one {oldText, newText} pair.");
		const several = args.edits.length > 1;
		return args.edits.map((edit, index) => ({ ...edit, label: several ? `edits[${index}]` : undefined }));
	}
	if (args.oldText === undefined && args.newText === undefined) {
		throw new Error("Provide oldText and newText, or edits: [{oldText, newText}, ...].");
	}
	if (args.oldText === undefined) throw new Error("oldText is required together with newText.");
	if (args.newText === undefined) throw new Error("newText is required together with oldText.");
	return [{ oldText: args.oldText, newText: args.newText, label: undefined }];
}

function withLabel(label: string | undefined, message: string): string {
	return label === undefined ? message : `${label}: ${message}`;
}

/**
 * Applies the edits one after another, each on the result of the previous one; throws naming the
 * edit that failed. Matching sees the text with LF line breaks; the replacement is spliced into
 * the text as it is, so lines outside each replaced region keep their endings.
 */
function applyEdits(content: string, edits: PlannedEdit[], displayPath: string): string {
	let current = content;
	for (const edit of edits) {
		if (edit.oldText === "") {
			throw new Error(withLabel(edit.label, "oldText must not be empty."));
		}
		const view = new LfView(current);
		const match = findUniqueMatch(view.text, toLf(edit.oldText), {
			tolerant: view.text.length <= TOLERANT_MATCH_MAX_CHARS,
		});
		if (match.kind === "notFound") {
			const exactOnly =
				view.text.length > TOLERANT_MATCH_MAX_CHARS
					? ` (files over ${formatSize(TOLERANT_MATCH_MAX_CHARS)} are matched exactly, without forgiving whitespace or quotes)`
					: "";
			throw new Error(
				withLabel(
					edit.label,
					`Could not find the exact text in ${displayPath}. The old text must match exactly, including all whitespace and newlines.${exactOnly}`,
				),
			);
		}
		if (match.kind === "notUnique") {
			throw new Error(
				withLabel(
					edit.label,
					`Found ${match.count} occurrences of the text in ${displayPath}. The text must be unique. Add more surrounding context to make it unique.`,
				),
			);
		}
		const start = view.toOriginal(match.start);
		const end = view.toOriginal(match.end);
		current = current.slice(0, start) + withEndingsOf(current, start, end, edit.newText) + current.slice(end);
	}
	return current;
}

function tooLarge(displayPath: string, size: number): EditRefusal {
	return new EditRefusal(
		`${displayPath} is too large to edit (${formatSize(size)}; at most ${formatSize(MAX_EDIT_BYTES)}). Use bash (sed, patch) instead.`,
	);
}

/** Reads the whole file through the open handle, to its end (it is edited in memory). */
async function readWhole(handle: FileHandle, displayPath: string): Promise<string> {
	const { size } = await handle.stat();
	if (size > MAX_EDIT_BYTES) throw tooLarge(displayPath, size);
	const chunks: Buffer[] = [];
	let length = 0;
	for (;;) {
		const chunk = Buffer.allocUnsafe(Math.max(64 * 1024, size + 1 - length));
		const { bytesRead } = await handle.read(chunk, 0, chunk.length, length);
		if (bytesRead === 0) break;
		chunks.push(chunk.subarray(0, bytesRead));
		length += bytesRead;
		// The file grew past the limit while it was read.
		if (length > MAX_EDIT_BYTES) throw tooLarge(displayPath, length);
	}
	return Buffer.concat(chunks, length).toString("utf8");
}

/** Replaces the file's content through the open handle: emptied, then written from the start. */
async function rewrite(handle: FileHandle, text: string): Promise<void> {
	const bytes = Buffer.from(text, "utf8");
	await handle.truncate(0);
	let offset = 0;
	while (offset < bytes.length) {
		const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset, offset);
		offset += bytesWritten;
	}
}

export function createEditTool(options: ToolOptions): AgentTool<typeof editSchema, EditToolDetails> {
	return {
		name: "edit",
		label: "edit",
		description:
			"Edit a file by replacing exact text. oldText must match the file exactly once, including whitespace and " +
			"indentation; include enough surrounding lines to make it unique. For several changes in one file, pass " +
			"edits: [{oldText, newText}, ...] instead; they are applied in order. Use write to create new files.",
		parameters: editSchema,
		async execute(_toolCallId, args, signal) {
			throwIfAborted(signal);
			const edits = planEdits(args);
			const displayPath = args.path;
			const absolutePath = resolveToolPath(displayPath, options.cwd);
			return withFileMutationQueue(absolutePath, async () => {
				checkToolWrite(options, absolutePath);
				const handle = await openToolFile(absolutePath, displayPath, "readWrite", {
					verb: "edit",
					directoryMessage: `${displayPath} is a directory, not a file`,
				});
				let raw: string;
				let updatedRaw: string;
				try {
					try {
						raw = await readWhole(handle, displayPath);
					} catch (error) {
						if (error instanceof EditRefusal) throw error;
						throw new Error(`Cannot read ${displayPath}: ${errorMessage(error)}`, { cause: error });
					}
					throwIfAborted(signal);

					const bom = raw.startsWith("\uFEFF") ? "\uFEFF" : "";
					const updated = applyEdits(raw.slice(bom.length), edits, displayPath);
					updatedRaw = bom + updated;
					if (updatedRaw === raw) {
						throw new Error(`No changes made to ${displayPath}. The replacement produced identical content.`);
					}

					throwIfAborted(signal);
					try {
						await rewrite(handle, updatedRaw);
					} catch (error) {
						throw new Error(`Cannot write ${displayPath}: ${errorMessage(error)}`, { cause: error });
					}
				} finally {
					await handle.close();
				}

				const text =
					edits.length > 1
						? `Successfully applied ${edits.length} edits to ${displayPath}.`
						: `Successfully replaced text in ${displayPath}.`;
				// The diff library is loaded with the first edit.
				const { buildEditDiff } = await import("./edit-diff.js");
				const before = toLf(raw.slice(raw.startsWith("\uFEFF") ? 1 : 0));
				const after = toLf(updatedRaw.slice(updatedRaw.startsWith("\uFEFF") ? 1 : 0));
				return { content: [{ type: "text", text }], details: buildEditDiff(displayPath, before, after) };
			});
		},
	};
}

/**
 * What an edit call does to a file's text, for file backends other than the disk (an editor's
 * buffers): the arguments checked, the replacements applied, byte order mark and line endings
 * kept. Returns the new text and the LF texts before and after (for the diff). Throws what the
 * disk tool throws.
 */
export function editFileText(
	raw: string,
	args: Static<typeof editSchema>,
	displayPath: string,
): { updated: string; before: string; after: string } {
	const edits = planEdits(args);
	const bom = raw.startsWith("\uFEFF") ? "\uFEFF" : "";
	const withoutBom = raw.slice(bom.length);
	const changed = applyEdits(withoutBom, edits, displayPath);
	if (changed === withoutBom) {
		throw new Error(`No changes made to ${displayPath}. The replacement produced identical content.`);
	}
	return { updated: bom + changed, before: toLf(withoutBom), after: toLf(changed) };
}

/** The success text of an edit call with `count` replacements. */
export function editSuccessText(count: number, displayPath: string): string {
	return count > 1
		? `Successfully applied ${count} edits to ${displayPath}.`
		: `Successfully replaced text in ${displayPath}.`;
}
