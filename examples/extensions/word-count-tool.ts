// A `word_count` tool the model can call: counts the lines, words and characters of a text file.
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { Type } from "typebox";
import type { ExtensionAPI } from "../../src/extensions/index.js";

export default function (atomic: ExtensionAPI) {
	atomic.registerTool({
		name: "word_count",
		label: "Word count",
		description: "Count the lines, words and characters of a text file (path relative to the working directory).",
		parameters: Type.Object({
			path: Type.String({ description: "The file to count" }),
		}),
		async execute(_toolCallId, params, signal, _onUpdate, ctx) {
			const text = await readFile(resolve(ctx.cwd, params.path), { encoding: "utf8", signal });
			const counts = {
				lines: text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0),
				words: text.split(/\s+/).filter(Boolean).length,
				characters: [...text].length,
			};
			return {
				content: [
					{
						type: "text",
						text: `${params.path}: ${counts.lines} lines, ${counts.words} words, ${counts.characters} characters`,
					},
				],
				details: counts,
			};
		},
	});
}
