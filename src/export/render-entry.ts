import { isKnownEntry, type KnownEntry, type SessionEntry } from "../session/types.js";
import { escapeHtml, formatCount, formatTimestamp, isRecord } from "./html-text.js";
import { describeEntry } from "./outline.js";
import { collapsible, entryLink, renderJson, renderOutput } from "./render-blocks.js";
import { type RenderedEntry, renderBranchSummaryText, renderCustom, renderMessage } from "./render-message.js";

function marker(kind: string, text: string, extra = ""): RenderedEntry {
	return { title: text, classes: [`kind-${kind}`], body: extra, marker: true };
}

function stringList(value: unknown): string[] {
	return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

function fileList(title: string, files: string[]): string {
	if (files.length === 0) return "";
	const items = files.map((file) => `<li><code>${escapeHtml(file)}</code></li>`).join("");
	return `<div class="file-list"><div class="file-list-title">${title}</div><ul>${items}</ul></div>`;
}

function renderKnown(entry: KnownEntry): RenderedEntry {
	switch (entry.type) {
		case "message":
			return renderMessage(entry.message);
		case "model_change":
			return marker("model", `Model → <span class="model">${escapeHtml(`${entry.provider}/${entry.modelId}`)}</span>`);
		case "thinking_level_change":
			return marker("thinking-level", `Thinking level → <strong>${escapeHtml(entry.thinkingLevel)}</strong>`);
		case "label":
			return entry.label
				? marker("label", `Label <span class="label">${escapeHtml(entry.label)}</span> on ${entryLink(entry.targetId)}`)
				: marker("label", `Label removed from ${entryLink(entry.targetId)}`);
		case "session_info":
			return entry.name?.trim()
				? marker("session-info", `Session named <strong>${escapeHtml(entry.name.trim())}</strong>`)
				: marker("session-info", "Session name cleared");
		case "custom":
			return marker(
				"extension-state",
				`Extension state: ${escapeHtml(entry.customType)}`,
				entry.data === undefined ? "" : collapsible("Data", renderJson(entry.data), "details-json"),
			);
		case "custom_message":
			return renderCustom(entry);
		case "tool_approval":
			return renderToolApproval(entry);
		case "compaction":
			return renderCompaction(entry);
		case "branch_summary": {
			const rendered = renderBranchSummaryText(entry.summary, entry.fromId);
			const details = isRecord(entry.details) ? entry.details : {};
			rendered.body += fileList("Read", stringList(details.readFiles));
			rendered.body += fileList("Modified", stringList(details.modifiedFiles));
			return rendered;
		}
	}
}

function renderCompaction(entry: Extract<KnownEntry, { type: "compaction" }>): RenderedEntry {
	const details = isRecord(entry.details) ? entry.details : {};
	const meta = [`${formatCount(entry.tokensBefore)} tokens before`];
	if (typeof details.strategy === "string") meta.push(escapeHtml(details.strategy));
	if (entry.fromHook) meta.push("by an extension");
	const kept = entry.firstKeptEntryId
		? `<div class="note">Kept from ${entryLink(entry.firstKeptEntryId)} on.</div>`
		: "";
	return {
		title: "Compaction",
		classes: ["kind-compaction"],
		meta: meta.join(" · "),
		body: `${kept}${entry.summary ? renderOutput(entry.summary, "compacted") : `<div class="note">(empty summary)</div>`}`,
	};
}

const DECIDED_BY: Record<Extract<KnownEntry, { type: "tool_approval" }>["by"], string> = {
	user: "by the user",
	rule: "by the policy",
	timeout: "after no answer in time",
	abort: "when the run was aborted",
};

const VERBS: Record<Extract<KnownEntry, { type: "tool_approval" }>["decision"], string> = {
	allow: "allowed",
	allow_always: "always allowed",
	deny: "denied",
	deny_always: "always denied",
};

/** A tool approval decision: what, who, and the rule or the user's message. */
function renderToolApproval(entry: Extract<KnownEntry, { type: "tool_approval" }>): RenderedEntry {
	const verb = VERBS[entry.decision];
	const denied = entry.decision === "deny" || entry.decision === "deny_always";
	const parts = [
		`Tool approval: <code>${escapeHtml(entry.toolName)}</code> <strong class="approval-${denied ? "deny" : "allow"}">${verb}</strong> ${DECIDED_BY[entry.by]}`,
	];
	if (entry.rule) parts.push(`rule <code>${escapeHtml(entry.rule)}</code>`);
	const details = [
		entry.reason ? `<div class="note">${escapeHtml(entry.reason)}</div>` : "",
		entry.message ? `<div class="note">Message: ${escapeHtml(entry.message)}</div>` : "",
	].join("");
	return marker("tool-approval", parts.join(" · "), details);
}

/** Entries of types other programs write: shown as data, folded. */
function renderForeign(entry: SessionEntry): RenderedEntry {
	return marker(
		"unknown",
		`Entry of type <code>${escapeHtml(entry.type)}</code>`,
		collapsible("Raw entry", renderJson(entry), "details-json"),
	);
}

export interface EntryContext {
	label?: string;
	/** All children when the entry is a branch point (two or more), else empty. */
	branches: readonly SessionEntry[];
	onActivePath: boolean;
	isLeaf: boolean;
}

/** One entry as an `<article>`, addressable as `#e-<id>`. */
export function renderEntryArticle(entry: SessionEntry, context: EntryContext): string {
	const rendered = isKnownEntry(entry) ? renderKnown(entry) : renderForeign(entry);
	const id = escapeHtml(entry.id);
	const classes = ["entry", ...rendered.classes];
	if (rendered.marker) classes.push("marker");
	if (context.onActivePath) classes.push("on-path");
	const head = [`<span class="entry-title">${rendered.title}</span>`];
	if (context.label) head.push(`<span class="label">${escapeHtml(context.label)}</span>`);
	if (context.isLeaf) head.push(`<span class="badge badge-leaf">leaf</span>`);
	if (rendered.meta) head.push(`<span class="entry-meta">${rendered.meta}</span>`);
	head.push(
		`<a class="entry-time" href="#e-${id}" title="${escapeHtml(entry.id)}">${escapeHtml(formatTimestamp(entry.timestamp))}</a>`,
	);
	const parts = [
		`<article class="${classes.join(" ")}" id="e-${id}" data-id="${id}">`,
		`<header class="entry-head">${head.join("")}</header>`,
	];
	if (rendered.body) parts.push(`<div class="entry-body">${rendered.body}</div>`);
	if (context.branches.length > 0) {
		const links = context.branches.map((child) => `<li>${entryLink(child.id, describeEntry(child).text)}</li>`);
		parts.push(
			`<footer class="branch-point">⑂ ${context.branches.length} branches from here<ul>${links.join("")}</ul></footer>`,
		);
	}
	parts.push("</article>");
	return parts.join("");
}
