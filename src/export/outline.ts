import { messageText } from "../agent/messages.js";
import type { AssistantMessage } from "../llm/types.js";
import { isKnownEntry, type SessionEntry } from "../session/types.js";
import { escapeHtml, preview } from "./html-text.js";
import type { SessionIndex } from "./session-index.js";

/** A one-line description of an entry for the outline: a short kind tag and plain text. */
export interface EntryDescription {
	kind: string;
	text: string;
}

function describeAssistant(content: AssistantMessage["content"]): string {
	for (const block of content) if (block.type === "text" && block.text.trim()) return preview(block.text);
	const tools = content.flatMap((block) => (block.type === "toolCall" ? [block.name] : []));
	if (tools.length > 0) return `→ ${tools.join(", ")}`;
	return content.some((block) => block.type === "thinking") ? "(thinking)" : "(empty)";
}

export function describeEntry(entry: SessionEntry): EntryDescription {
	if (!isKnownEntry(entry)) return { kind: "other", text: entry.type };
	switch (entry.type) {
		case "message": {
			const message = entry.message;
			switch (message.role) {
				case "user":
					return { kind: "user", text: preview(messageText(message)) || "[image]" };
				case "assistant":
					if (message.stopReason === "error") return { kind: "error", text: preview(message.errorMessage ?? "error") };
					return { kind: "assistant", text: describeAssistant(message.content) };
				case "toolResult":
					return {
						kind: message.isError ? "error" : "tool",
						text: `${message.toolName}: ${preview(messageText(message))}`,
					};
				case "bashExecution":
					return { kind: "bash", text: `$ ${preview(message.command)}` };
				case "custom":
					return { kind: "custom", text: `${message.customType}: ${preview(messageText(message))}` };
				case "branchSummary":
					return { kind: "summary", text: `branch summary: ${preview(message.summary)}` };
				default:
					return { kind: "other", text: "message" };
			}
		}
		case "model_change":
			return { kind: "marker", text: `model: ${entry.provider}/${entry.modelId}` };
		case "thinking_level_change":
			return { kind: "marker", text: `thinking: ${entry.thinkingLevel}` };
		case "compaction":
			return { kind: "summary", text: "compaction" };
		case "branch_summary":
			return { kind: "summary", text: `branch summary: ${preview(entry.summary)}` };
		case "label":
			return { kind: "marker", text: entry.label ? `label: ${entry.label}` : "label removed" };
		case "session_info":
			return { kind: "marker", text: entry.name?.trim() ? `name: ${entry.name.trim()}` : "name cleared" };
		case "custom":
			return { kind: "marker", text: `state: ${entry.customType}` };
		case "tool_approval":
			return { kind: "marker", text: `approval: ${entry.toolName} ${entry.decision} (${entry.by})` };
		case "custom_message": {
			const text =
				typeof entry.content === "string"
					? entry.content
					: entry.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
			return { kind: "custom", text: `${entry.customType}: ${preview(text)}` };
		}
	}
}

function outlineNode(entry: SessionEntry, index: SessionIndex): string {
	const id = escapeHtml(entry.id);
	const parent = escapeHtml(index.parentOf.get(entry.id) ?? "");
	const { kind, text } = describeEntry(entry);
	const classes = ["tree-node", `tree-${kind}`];
	if (index.activeIds.has(entry.id)) classes.push("on-path");
	if (entry.id === index.leafId) classes.push("leaf");
	const parts = [
		`<a class="${classes.join(" ")}" href="#e-${id}" data-id="${id}" data-parent="${parent}">`,
		`<span class="tree-text">${escapeHtml(text)}</span>`,
	];
	const label = index.labels.get(entry.id);
	if (label) parts.push(`<span class="label">${escapeHtml(label)}</span>`);
	const branches = index.childrenOf.get(entry.id)?.length ?? 0;
	if (branches > 1) parts.push(`<span class="fork" title="${branches} branches">⑂${branches}</span>`);
	parts.push("</a>");
	return parts.join("");
}

type OutlineTask = { branchStart: SessionEntry } | { html: string };

/**
 * The whole tree as nested lists. A chain of single children stays on one level; only branch
 * points open a nested list, so a long linear session is a flat list. Built with an explicit
 * stack: deep trees cannot overflow the call stack.
 */
export function renderOutline(index: SessionIndex): string {
	const out: string[] = ['<ul class="tree">'];
	const tasks: OutlineTask[] = [{ html: "</ul>" }];
	for (let position = index.roots.length - 1; position >= 0; position--) {
		const root = index.roots[position];
		if (root) tasks.push({ branchStart: root });
	}
	for (let task = tasks.pop(); task; task = tasks.pop()) {
		if ("html" in task) {
			out.push(task.html);
			continue;
		}
		let entry = task.branchStart;
		out.push(`<li class="${index.activeIds.has(entry.id) ? "branch on-path" : "branch"}">`);
		out.push(outlineNode(entry, index));
		let children = index.childrenOf.get(entry.id) ?? [];
		while (children.length === 1 && children[0]) {
			entry = children[0];
			out.push(outlineNode(entry, index));
			children = index.childrenOf.get(entry.id) ?? [];
		}
		if (children.length === 0) {
			out.push("</li>");
			continue;
		}
		out.push('<ul class="tree">');
		tasks.push({ html: "</ul></li>" });
		for (let position = children.length - 1; position >= 0; position--) {
			const child = children[position];
			if (child) tasks.push({ branchStart: child });
		}
	}
	return out.join("");
}
