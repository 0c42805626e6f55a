import type { ContextFile } from "./context-files.js";

export interface SystemPromptInput {
	cwd: string;
	/**
	 * Each active tool: its line in the tool list is `promptSnippet`, else the description's first
	 * sentence; its `promptGuidelines` join the guidelines.
	 */
	tools: { name: string; description: string; promptSnippet?: string; promptGuidelines?: string[] }[];
	contextFiles: ContextFile[];
	/** Extra skill listing (XML) appended when skills are available. */
	skillsSection?: string;
	/** Text appended at the end (e.g. --append-system-prompt). */
	append?: string;
	now?: Date;
}

function firstSentence(text: string): string {
	const line = text.split("\n")[0] ?? "";
	const end = line.search(/\.(\s|$)/);
	return end > 0 ? line.slice(0, end + 1) : line;
}

/** The tools' own guideline bullets, once each, in tool order. */
function toolGuidelines(tools: SystemPromptInput["tools"]): string[] {
	const lines = tools.flatMap((tool) => tool.promptGuidelines ?? []).map((line) => line.trim());
	return [...new Set(lines.filter(Boolean))].map((line) => `- ${line}`);
}

/** The default system prompt: role, tools, working habits, date, cwd and project instructions. */
export function buildSystemPrompt(input: SystemPromptInput): string {
	const date = (input.now ?? new Date()).toISOString().slice(0, 10);
	const sections: string[] = [
		"You are Atomic, a coding agent working in the user's project. You read and change files, run commands, and explain what you did.",
	];
	if (input.tools.length > 0) {
		const toolLines = input.tools.map(
			(tool) => `- ${tool.name}: ${tool.promptSnippet?.trim() || firstSentence(tool.description)}`,
		);
		sections.push(`Tools:\n${toolLines.join("\n")}`);
	}
	sections.push(
		[
			"Guidelines:",
			"- Look before you change: read the relevant files first, and search rather than guess.",
			"- Prefer edit for changes to existing files; use write for new files or full rewrites.",
			"- Keep changes focused on the request; follow the project's style and conventions.",
			"- Run the project's tests or checks after a change when they exist, and report what you ran.",
			"- Be concise. Show file paths plainly; do not paste whole files back unless asked.",
			...toolGuidelines(input.tools),
		].join("\n"),
	);
	for (const file of input.contextFiles) {
		sections.push(`Project instructions from ${file.path}:\n\n${file.content.trim()}`);
	}
	if (input.skillsSection) sections.push(input.skillsSection);
	sections.push(`Current date: ${date}\nCurrent working directory: ${input.cwd}`);
	if (input.append?.trim()) sections.push(input.append.trim());
	return sections.join("\n\n");
}
