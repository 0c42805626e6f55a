import type { AgentMessage, BashExecutionMessage, CustomMessage } from "../agent/messages.js";
import type { AssistantMessage, ToolResultMessage } from "../llm/types.js";
import { escapeHtml, finiteOrZero, formatCost, formatCount, isRecord } from "./html-text.js";
import { codeBlock, renderMarkdown } from "./markdown.js";
import { collapsible, entryLink, renderContent, renderJson, renderOutput } from "./render-blocks.js";

/** One rendered entry: the renderers fill it, the page wraps it in an article. */
export interface RenderedEntry {
	/** HTML of the kind line ("User", "Tool result: read"). */
	title: string;
	/** Extra classes for the article: kind and state (`error`, `muted`). */
	classes: string[];
	/** HTML shown at the right of the kind line. */
	meta?: string;
	body: string;
	/** Small one-line entries (model changes, labels) instead of cards. */
	marker?: boolean;
}

function usageLine(message: AssistantMessage): string {
	const usage: unknown = message.usage;
	if (!isRecord(usage)) return "";
	const parts = [`in ${formatCount(finiteOrZero(usage.input))}`, `out ${formatCount(finiteOrZero(usage.output))}`];
	const cacheRead = finiteOrZero(usage.cacheRead);
	const cacheWrite = finiteOrZero(usage.cacheWrite);
	if (cacheRead) parts.push(`cache read ${formatCount(cacheRead)}`);
	if (cacheWrite) parts.push(`cache write ${formatCount(cacheWrite)}`);
	const cost = isRecord(usage.cost) ? finiteOrZero(usage.cost.total) : 0;
	if (cost) parts.push(formatCost(cost));
	return parts.join(" · ");
}

function renderAssistant(message: AssistantMessage): RenderedEntry {
	const parts: string[] = [];
	for (const block of message.content) {
		if (block.type === "text") {
			if (block.text.trim()) parts.push(`<div class="markdown">${renderMarkdown(block.text)}</div>`);
		} else if (block.type === "thinking") {
			if (block.redacted) parts.push(`<div class="thinking redacted">Thinking (redacted by the provider)</div>`);
			else if (block.thinking.trim())
				parts.push(
					collapsible("Thinking", `<div class="markdown">${renderMarkdown(block.thinking)}</div>`, "thinking"),
				);
		} else if (block.type === "toolCall") {
			parts.push(
				`<div class="tool-call"><div class="tool-call-head"><span class="tool-name">${escapeHtml(block.name)}</span>`,
				`<span class="tool-call-id">${escapeHtml(block.id)}</span></div>${renderJson(block.arguments)}</div>`,
			);
		}
	}
	const failed = message.stopReason === "error" || message.stopReason === "aborted";
	if (failed) {
		const what = message.stopReason === "aborted" ? "Aborted" : "Error";
		const detail = message.errorMessage ? `: ${escapeHtml(message.errorMessage)}` : "";
		parts.push(`<div class="error-banner">${what}${detail}</div>`);
	} else if (message.stopReason === "length") {
		parts.push(`<div class="note">Stopped at the output token limit.</div>`);
	}
	const model = `<span class="model">${escapeHtml(`${message.provider}/${message.model}`)}</span>`;
	const usage = usageLine(message);
	return {
		title: "Assistant",
		classes: ["kind-assistant", ...(failed ? ["error"] : [])],
		meta: usage ? `${model} · ${escapeHtml(usage)}` : model,
		body: parts.join(""),
	};
}

function renderToolResult(message: ToolResultMessage): RenderedEntry {
	const parts = [renderContent(message.content, "output")];
	const details: unknown = message.details;
	if (isRecord(details)) {
		if (typeof details.diff === "string" && details.diff)
			parts.push(collapsible("Diff", codeBlock(details.diff, "diff"), "diff", true));
		if (typeof details.fullOutputPath === "string")
			parts.push(`<div class="note">Full output: <code>${escapeHtml(details.fullOutputPath)}</code></div>`);
	}
	return {
		title: `Tool result: <span class="tool-name">${escapeHtml(message.toolName)}</span>`,
		classes: ["kind-tool-result", ...(message.isError ? ["error"] : [])],
		meta: message.isError ? `<span class="badge badge-error">error</span>` : undefined,
		body: parts.join(""),
	};
}

function renderBash(message: BashExecutionMessage): RenderedEntry {
	const parts = [`<pre class="command">$ ${escapeHtml(message.command)}</pre>`];
	parts.push(message.output ? renderOutput(message.output) : `<div class="note">(no output)</div>`);
	if (message.truncated)
		parts.push(
			`<div class="note">Output truncated${message.fullOutputPath ? `; full output: <code>${escapeHtml(message.fullOutputPath)}</code>` : ""}.</div>`,
		);
	if (message.excludeFromContext) parts.push(`<div class="note">Not sent to the model.</div>`);
	const failed = message.cancelled || (message.exitCode !== undefined && message.exitCode !== 0);
	const status = message.cancelled
		? `<span class="badge badge-error">cancelled</span>`
		: message.exitCode === undefined
			? ""
			: `<span class="badge ${failed ? "badge-error" : "badge-ok"}">exit ${escapeHtml(String(message.exitCode))}</span>`;
	return {
		title: "Bash",
		classes: ["kind-bash", ...(failed ? ["error"] : [])],
		meta: status || undefined,
		body: parts.join(""),
	};
}

/** Custom messages from extensions or the runtime; ones not meant for display are folded and dimmed. */
export function renderCustom(
	message: Pick<CustomMessage, "customType" | "content" | "display" | "details">,
): RenderedEntry {
	const parts = [renderContent(message.content, "markdown")];
	if (message.details !== undefined) parts.push(collapsible("Details", renderJson(message.details), "details-json"));
	const body = parts.join("");
	return {
		title: `Custom: ${escapeHtml(message.customType)}`,
		classes: ["kind-custom", ...(message.display ? [] : ["muted"])],
		body: message.display ? body : collapsible("Not displayed in the app", body, "hidden-custom"),
	};
}

export function renderBranchSummaryText(summary: string, fromId: string): RenderedEntry {
	return {
		title: "Branch summary",
		classes: ["kind-summary"],
		meta: fromId === "root" ? "from the start" : `from ${entryLink(fromId)}`,
		body: `<div class="markdown">${renderMarkdown(summary)}</div>`,
	};
}

export function renderMessage(message: AgentMessage): RenderedEntry {
	switch (message.role) {
		case "user":
			return { title: "User", classes: ["kind-user"], body: renderContent(message.content, "markdown") };
		case "assistant":
			return renderAssistant(message);
		case "toolResult":
			return renderToolResult(message);
		case "bashExecution":
			return renderBash(message);
		case "custom":
			return renderCustom(message);
		case "branchSummary":
			return renderBranchSummaryText(message.summary, message.fromId);
		default:
			return renderUnknownMessage(message);
	}
}

/** Roles written by other programs: shown as data rather than dropped. */
function renderUnknownMessage(message: unknown): RenderedEntry {
	const role = isRecord(message) && typeof message.role === "string" ? message.role : "unknown";
	return {
		title: `Message: ${escapeHtml(role)}`,
		classes: ["kind-unknown", "muted"],
		body: collapsible("Raw message", renderJson(message), "details-json"),
	};
}
