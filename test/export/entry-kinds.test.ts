import { describe, expect, it } from "vitest";
import { renderSessionHtml } from "../../src/export/index.js";
import { articleIds, EntryBuilder, sectionHtml, text, toolCall } from "./session-fixtures.js";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

function everyKind(): EntryBuilder {
	const edit = toolCall("call-1", "edit", { path: "a.ts", oldText: "x", newText: "y" });
	const broken = toolCall("call-2", "read", { path: "missing.ts" });
	const longOutput = Array.from({ length: 40 }, (_, line) => `line ${line + 1}`).join("\n");
	return new EntryBuilder()
		.entry("m0", null, { type: "model_change", provider: "anthropic", modelId: "claude-test" })
		.entry("h0", "m0", { type: "thinking_level_change", thinkingLevel: "high" })
		.message("u1", "h0", {
			role: "user",
			content: [text("Look at this picture"), { type: "image", mimeType: "image/png", data: PNG }],
			timestamp: 0,
		})
		.assistant("a1", "u1", [{ type: "thinking", thinking: "Pondering the *image*" }, text("I will edit it."), edit])
		.toolResult("t1", "a1", edit, longOutput, false, { diff: "-x\n+y\n" })
		.assistant("a2", "t1", [{ type: "thinking", thinking: "", redacted: true, thinkingSignature: "opaque" }, broken])
		.toolResult("t2", "a2", broken, "ENOENT: missing.ts", true)
		.assistant("a3", "t2", [], { stopReason: "error", errorMessage: "529 overloaded" })
		.message("b1", "a3", {
			role: "bashExecution",
			command: "npm test",
			output: "1 failing\n",
			exitCode: 1,
			cancelled: false,
			truncated: false,
			timestamp: 0,
		})
		.message("b2", "b1", {
			role: "bashExecution",
			command: "sleep 100",
			output: "",
			cancelled: true,
			truncated: false,
			excludeFromContext: true,
			timestamp: 0,
		})
		.message("c1", "b2", {
			role: "custom",
			customType: "note",
			content: "A **custom** note",
			display: true,
			timestamp: 0,
		})
		.entry("c2", "c1", { type: "custom_message", customType: "quiet", content: "hidden text", display: false })
		.entry("k1", "c2", {
			type: "compaction",
			summary: "[user] Look at this picture\n[assistant] I will edit it.",
			firstKeptEntryId: "u1",
			tokensBefore: 54321,
			details: { strategy: "verbatim-lines" },
		})
		.entry("s1", "k1", {
			type: "branch_summary",
			fromId: "a1",
			summary: "Tried **another** approach",
			details: { readFiles: ["a.ts"], modifiedFiles: ["b.ts"] },
		})
		.message("s2", "s1", { role: "branchSummary", summary: "Message summary", fromId: "root", timestamp: 0 })
		.entry("l1", "s2", { type: "label", targetId: "u1", label: "picture" })
		.entry("l2", "l1", { type: "label", targetId: "a1", label: "edit" })
		.entry("l3", "l2", { type: "label", targetId: "a1" })
		.entry("n1", "l3", { type: "session_info", name: "Kinds" })
		.entry("x1", "n1", { type: "custom", customType: "plan-state", data: { step: 2 } })
		.foreign("f1", "x1", { type: "context_window_change", contextWindow: 1000 });
}

/** The article of one entry. */
function article(html: string, id: string): string {
	const start = html.lastIndexOf("<article ", html.indexOf(`id="e-${id}"`));
	return html.slice(start, html.indexOf("</article>", start) + "</article>".length);
}

describe("renderSessionHtml: entry kinds", () => {
	it("shows every entry of the branch in order", async () => {
		const html = await renderSessionHtml(everyKind().input("f1"));
		expect(articleIds(sectionHtml(html, "conversation"))).toEqual([
			"m0",
			"h0",
			"u1",
			"a1",
			"t1",
			"a2",
			"t2",
			"a3",
			"b1",
			"b2",
			"c1",
			"c2",
			"k1",
			"s1",
			"s2",
			"l1",
			"l2",
			"l3",
			"n1",
			"x1",
			"f1",
		]);
	});

	it("renders model and thinking changes, labels and names as markers", async () => {
		const html = await renderSessionHtml(everyKind().input("f1"));
		expect(article(html, "m0")).toContain(
			'<article class="entry kind-model marker on-path" id="e-m0" data-id="m0"><header class="entry-head"><span class="entry-title">Model → <span class="model">anthropic/claude-test</span></span>',
		);
		expect(article(html, "h0")).toContain("Thinking level → <strong>high</strong>");
		expect(article(html, "l1")).toContain(
			'Label <span class="label">picture</span> on <a class="entry-link" href="#e-u1" data-id="u1">u1</a>',
		);
		expect(article(html, "l3")).toContain('Label removed from <a class="entry-link" href="#e-a1" data-id="a1">a1</a>');
		expect(article(html, "n1")).toContain("Session named <strong>Kinds</strong>");
		expect(html).toContain("<h1>Kinds</h1>");
		// The current label shows on its target; a removed one does not.
		expect(article(html, "u1")).toContain('<span class="label">picture</span>');
		expect(article(html, "a1")).not.toContain('class="label"');
		expect(article(html, "x1")).toContain("Extension state: plan-state");
		expect(article(html, "x1")).toContain(
			'<span class="hljs-attr">&quot;step&quot;</span>: <span class="hljs-number">2</span>',
		);
		expect(article(html, "f1")).toContain("Entry of type <code>context_window_change</code>");
	});

	it("renders user images inline, thinking folded, tool calls and results", async () => {
		const html = await renderSessionHtml(everyKind().input("f1"));
		expect(article(html, "u1")).toContain(
			`<img class="inline-image" src="data:image/png;base64,${PNG}" alt="image/png"`,
		);
		expect(article(html, "a1")).toContain(
			'<details class="thinking"><summary>Thinking</summary><div class="markdown"><p>Pondering the <em>image</em></p>',
		);
		expect(article(html, "a1")).toContain(
			'<span class="tool-name">edit</span><span class="tool-call-id">call-1</span>',
		);
		expect(article(html, "a2")).toContain("Thinking (redacted by the provider)");
		const result = article(html, "t1");
		expect(result).toContain('Tool result: <span class="tool-name">edit</span>');
		expect(result).toContain(`<pre>${Array.from({ length: 12 }, (_, line) => `line ${line + 1}`).join("\n")}</pre>`);
		expect(result).toContain('<details class="more"><summary>28 more lines</summary><pre>line 13\n');
		expect(result).toContain(
			'<details class="diff" open><summary>Diff</summary><pre><code class="hljs language-diff">',
		);
		expect(result).toContain('<span class="hljs-deletion">-x');
		expect(article(html, "t2")).toContain('class="entry kind-tool-result error on-path"');
		expect(article(html, "t2")).toContain('<span class="badge badge-error">error</span>');
		expect(article(html, "a3")).toContain('<div class="error-banner">Error: 529 overloaded</div>');
	});

	it("renders bash executions with command, output and exit status", async () => {
		const html = await renderSessionHtml(everyKind().input("f1"));
		const failed = article(html, "b1");
		expect(failed).toContain('<pre class="command">$ npm test</pre>');
		expect(failed).toContain('<pre class="output">1 failing\n</pre>');
		expect(failed).toContain('<span class="badge badge-error">exit 1</span>');
		const cancelled = article(html, "b2");
		expect(cancelled).toContain('<span class="badge badge-error">cancelled</span>');
		expect(cancelled).toContain("(no output)");
		expect(cancelled).toContain("Not sent to the model.");
	});

	it("renders custom messages, compactions and branch summaries as cards", async () => {
		const html = await renderSessionHtml(everyKind().input("f1"));
		expect(article(html, "c1")).toContain("Custom: note");
		expect(article(html, "c1")).toContain("A <strong>custom</strong> note");
		expect(article(html, "c2")).toContain('class="entry kind-custom muted on-path"');
		expect(article(html, "c2")).toContain("<summary>Not displayed in the app</summary>");
		const compaction = article(html, "k1");
		expect(compaction).toContain('<span class="entry-meta">54,321 tokens before · verbatim-lines</span>');
		expect(compaction).toContain(
			'<pre class="compacted">[user] Look at this picture\n[assistant] I will edit it.</pre>',
		);
		expect(compaction).toContain('Kept from <a class="entry-link" href="#e-u1" data-id="u1">u1</a> on.');
		const summary = article(html, "s1");
		expect(summary).toContain("Tried <strong>another</strong> approach");
		expect(summary).toContain('<div class="file-list-title">Modified</div><ul><li><code>b.ts</code></li></ul>');
		expect(article(html, "s2")).toContain('<span class="entry-meta">from the start</span>');
	});
});
