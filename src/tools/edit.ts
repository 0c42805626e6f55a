import { readFile, writeFile } from "node:fs/promises";
import type { Static } from "typebox";
import type { AgentTool } from "../agent/types.js";
import { Type } from "../llm/schema-builders.js";
import type { EditDiff } from "./edit-diff.js";
import { findUniqueMatch } from "./edit-match.js";
import { errorMessage, statExisting, throwIfAborted } from "./file-access.js";
import { withFileMutationQueue } from "./file-mutation-queue.js";
import { resolveToolPath } from "./paths.js";
import type { ToolOptions } from "./types.js";

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

function toLf(text: string): string {
	return text.replaceAll("\r\n", "\n");
}

/** The file's style is that of its first line break. */
function usesCrlf(text: string): boolean {
	const firstNewline = text.indexOf("\n");
	return firstNewline > 0 && text[firstNewline - 1] === "\r";
}

function withLabel(label: string | undefined, message: string): string {
	return label === undefined ? message : `${label}: ${message}`;
}

/** Applies the edits one after another to the LF text; throws naming the edit that failed. */
function applyEdits(content: string, edits: PlannedEdit[], displayPath: string): string {
	let current = content;
	for (const edit of edits) {
		if (edit.oldText === "") {
			throw new Error(withLabel(edit.label, "oldText must not be empty."));
		}
		const match = findUniqueMatch(current, toLf(edit.oldText));
		if (match.kind === "notFound") {
			throw new Error(
				withLabel(
					edit.label,
					`Could not find the exact text in ${displayPath}. The old text must match exactly, including all whitespace and newlines.`,
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
		current = current.slice(0, match.start) + toLf(edit.newText) + current.slice(match.end);
	}
	return current;
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
				const stats = await statExisting(absolutePath, displayPath);
				if (stats.isDirectory()) throw new Error(`${displayPath} is a directory, not a file`);
				let raw: string;
				try {
					raw = await readFile(absolutePath, "utf8");
				} catch (error) {
					throw new Error(`Cannot read ${displayPath}: ${errorMessage(error)}`, { cause: error });
				}
				throwIfAborted(signal);

				const bom = raw.startsWith("\uFEFF") ? "\uFEFF" : "";
				const withoutBom = raw.slice(bom.length);
				const crlf = usesCrlf(withoutBom);
				const original = toLf(withoutBom);
				const updated = applyEdits(original, edits, displayPath);
				if (updated === original) {
					throw new Error(`No changes made to ${displayPath}. The replacement produced identical content.`);
				}

				throwIfAborted(signal);
				const restored = crlf ? updated.replaceAll("\n", "\r\n") : updated;
				try {
					await writeFile(absolutePath, bom + restored, "utf8");
				} catch (error) {
					throw new Error(`Cannot write ${displayPath}: ${errorMessage(error)}`, { cause: error });
				}

				const text =
					edits.length > 1
						? `Successfully applied ${edits.length} edits to ${displayPath}.`
						: `Successfully replaced text in ${displayPath}.`;
				// The diff library is loaded with the first edit.
				const { buildEditDiff } = await import("./edit-diff.js");
				return { content: [{ type: "text", text }], details: buildEditDiff(displayPath, original, updated) };
			});
		},
	};
}
