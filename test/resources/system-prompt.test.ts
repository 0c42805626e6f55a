import { describe, expect, it } from "vitest";
import { buildSystemPrompt } from "../../src/resources/system-prompt.js";

describe("buildSystemPrompt", () => {
	it("lists each tool by its snippet, else its first sentence, and adds tools' guidelines once", () => {
		const prompt = buildSystemPrompt({
			cwd: "/p",
			contextFiles: [],
			now: new Date("2026-01-02T00:00:00Z"),
			tools: [
				{ name: "read", description: "Read a file. Long details follow." },
				{
					name: "paint",
					description: "Paints walls.",
					promptSnippet: "paint the wall",
					promptGuidelines: ["Use paint only for walls.", "  Ask before painting.  "],
				},
				{ name: "brush", description: "Brushes.", promptGuidelines: ["Use paint only for walls.", ""] },
			],
		});
		expect(prompt).toContain("Tools:\n- read: Read a file.\n- paint: paint the wall\n- brush: Brushes.\n");
		expect(prompt).toContain(
			"- Be concise. Show file paths plainly; do not paste whole files back unless asked.\n- Use paint only for walls.\n- Ask before painting.\n\nCurrent date: 2026-01-02",
		);
	});
});
