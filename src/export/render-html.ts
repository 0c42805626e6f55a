import type { SessionEntry, SessionHeader } from "../session/types.js";
import { escapeHtml, formatCost, formatCount, formatTimestamp, jsonWithoutSecrets } from "./html-text.js";
import { renderOutline } from "./outline.js";
import { collapsible, entryLink } from "./render-blocks.js";
import { renderEntryArticle } from "./render-entry.js";
import { PAGE_SCRIPT } from "./script.js";
import { indexSession, type SessionIndex } from "./session-index.js";
import { type SessionTotals, sessionTotals } from "./session-totals.js";
import { PAGE_CSS } from "./styles.js";

export interface SessionExportInput {
	header: SessionHeader;
	/** Every entry of the session (the whole tree), in file order. */
	entries: SessionEntry[];
	/** The end of the active branch; `null` for an empty conversation. */
	leafId: string | null;
	systemPrompt?: string;
	tools?: { name: string; description: string }[];
}

const ROLE_NAMES: Record<string, string> = {
	user: "user",
	assistant: "assistant",
	toolResult: "tool results",
	bashExecution: "bash",
	custom: "custom",
	branchSummary: "branch summaries",
};

function renderTotals(totals: SessionTotals): string {
	const cells: [string, string, string][] = [
		["input", "Input", formatCount(totals.input)],
		["output", "Output", formatCount(totals.output)],
		["cache-read", "Cache read", formatCount(totals.cacheRead)],
		["cache-write", "Cache write", formatCount(totals.cacheWrite)],
		["cost", "Cost", formatCost(totals.cost)],
	];
	const head = cells.map(([, title]) => `<th>${title}</th>`).join("");
	const values = cells.map(([key, , value]) => `<td data-total="${key}">${value}</td>`).join("");
	return `<table class="totals"><thead><tr>${head}</tr></thead><tbody><tr>${values}</tr></tbody></table>`;
}

function renderCounts(totals: SessionTotals): string {
	const messages = [...totals.messagesByRole.values()].reduce((sum, count) => sum + count, 0);
	const byRole = [...totals.messagesByRole.entries()].map(
		([role, count]) =>
			`<span data-count="${escapeHtml(role)}">${formatCount(count)}</span> ${escapeHtml(ROLE_NAMES[role] ?? role)}`,
	);
	const parts = [
		`<span data-count="entries">${formatCount(totals.entries)}</span> entries`,
		`<span data-count="messages">${formatCount(messages)}</span> messages${byRole.length ? ` (${byRole.join(", ")})` : ""}`,
		`<span data-count="tool-calls">${formatCount(totals.toolCalls)}</span> tool calls`,
	];
	return `<p class="counts">${parts.join(" · ")}</p>`;
}

function renderHeader(input: SessionExportInput, index: SessionIndex, totals: SessionTotals): string {
	const { header } = input;
	const facts: [string, string][] = [
		["Session", `<code>${escapeHtml(String(header.id))}</code>`],
		["Directory", `<code>${escapeHtml(String(header.cwd))}</code>`],
		["Created", escapeHtml(formatTimestamp(header.timestamp))],
		["Models", totals.models.map((model) => `<code>${escapeHtml(model)}</code>`).join(", ") || "none"],
	];
	if (typeof header.parentSession === "string")
		facts.push(["Forked from", `<code>${escapeHtml(header.parentSession)}</code>`]);
	if (index.leafId) facts.push(["Active leaf", entryLink(index.leafId)]);
	const list = facts.map(([term, value]) => `<dt>${term}</dt><dd>${value}</dd>`).join("");
	return [
		'<header class="session-header">',
		`<h1>${escapeHtml(index.sessionName ?? "Untitled session")}</h1>`,
		`<dl class="session-facts">${list}</dl>`,
		renderTotals(totals),
		renderCounts(totals),
		'<a id="download-jsonl" class="download" href="#" hidden>Download session JSONL</a>',
		"</header>",
	].join("");
}

function renderContextInfo(input: SessionExportInput): string {
	const parts: string[] = [];
	if (input.systemPrompt !== undefined)
		parts.push(
			collapsible("System prompt", `<pre class="output">${escapeHtml(input.systemPrompt)}</pre>`, "context-info"),
		);
	if (input.tools && input.tools.length > 0) {
		const list = input.tools
			.map((tool) => `<dt>${escapeHtml(tool.name)}</dt><dd>${escapeHtml(tool.description)}</dd>`)
			.join("");
		parts.push(collapsible(`Tools (${input.tools.length})`, `<dl>${list}</dl>`, "context-info"));
	}
	return parts.join("");
}

function renderArticles(index: SessionIndex): { active: string; others: string } {
	const articleOf = (entry: SessionEntry) => {
		const children = index.childrenOf.get(entry.id) ?? [];
		return renderEntryArticle(entry, {
			label: index.labels.get(entry.id),
			branches: children.length > 1 ? children : [],
			onActivePath: index.activeIds.has(entry.id),
			isLeaf: entry.id === index.leafId,
		});
	};
	const active = index.activePath.map(articleOf);
	// Each id is rendered once: a repeated id (damaged file) would break the page's anchors.
	const rendered = new Set(index.activeIds);
	const others: string[] = [];
	for (const entry of index.entries) {
		if (rendered.has(entry.id)) continue;
		rendered.add(entry.id);
		others.push(articleOf(entry));
	}
	return { active: active.join(""), others: others.join("") };
}

/** The session data for tools and the download link: base64 of JSON, so no text can end the script. */
function encodeSessionData(input: SessionExportInput): string {
	const payload: Record<string, unknown> = { header: input.header, entries: input.entries, leafId: input.leafId };
	if (input.systemPrompt !== undefined) payload.systemPrompt = input.systemPrompt;
	// Callers may pass full tool definitions; only what the page shows is kept.
	if (input.tools !== undefined)
		payload.tools = input.tools.map((tool) => ({ name: tool.name, description: tool.description }));
	return Buffer.from(jsonWithoutSecrets(payload), "utf8").toString("base64");
}

/** The whole session as one self-contained HTML page (no network needed to view it). */
export async function renderSessionHtml(input: SessionExportInput): Promise<string> {
	const index = indexSession(input.entries, input.leafId);
	const totals = sessionTotals(input.entries);
	const articles = renderArticles(index);
	const title = index.sessionName ?? String(input.header.id);
	const backLink = index.leafId ? ` ${entryLink(index.leafId, "Back to the active branch")}` : "";
	return [
		"<!DOCTYPE html>",
		'<html lang="en">',
		"<head>",
		'<meta charset="utf-8">',
		'<meta name="viewport" content="width=device-width, initial-scale=1">',
		'<meta name="color-scheme" content="light dark">',
		`<title>${escapeHtml(title)} · Atomic session</title>`,
		`<style>${PAGE_CSS}</style>`,
		// Without the script there is no branch switching: show the other branches below instead.
		"<noscript><style>#other-entries[hidden] { display: block; }</style></noscript>",
		"</head>",
		"<body>",
		'<div class="layout">',
		'<nav class="sidebar" aria-label="Session tree">',
		`<div class="sidebar-head"><span>Session tree</span><span>${formatCount(input.entries.length)}</span></div>`,
		renderOutline(index),
		"</nav>",
		"<main>",
		renderHeader(input, index, totals),
		renderContextInfo(input),
		`<div id="branch-banner" class="branch-banner" hidden>Showing another branch.${backLink}</div>`,
		`<h2 id="conversation-title" class="section-title">Active branch · ${formatCount(index.activePath.length)} entries</h2>`,
		`<section id="conversation">${articles.active}</section>`,
		'<section id="other-entries" class="other-entries" hidden>',
		"<h2>Entries on other branches</h2>",
		`<div id="entry-pool">${articles.others}</div>`,
		"</section>",
		"</main>",
		"</div>",
		`<script type="application/json" id="session-data">${encodeSessionData(input)}</script>`,
		`<script>${PAGE_SCRIPT}</script>`,
		"</body>",
		"</html>",
	].join("\n");
}
