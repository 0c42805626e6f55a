import { describe, expect, it } from "vitest";
import { renderSessionHtml } from "../../src/export/index.js";
import { articleIds, EntryBuilder, sectionHtml } from "./session-fixtures.js";

const call = { toolCallId: "call_1", toolName: "bash" };

function approvals(): EntryBuilder {
	return new EntryBuilder()
		.entry("p1", null, {
			type: "tool_approval",
			...call,
			decision: "allow_always",
			by: "user",
			rule: "bash(npm *)",
			reason: "approval mode ask: bash is not read-only",
			requestId: "r-1",
		})
		.entry("p2", "p1", { type: "tool_approval", ...call, decision: "allow", by: "rule", rule: "bash(npm *)" })
		.entry("p3", "p2", {
			type: "tool_approval",
			...call,
			decision: "deny",
			by: "user",
			message: "<not> now",
			reason: "approval mode ask",
		})
		.entry("p4", "p3", { type: "tool_approval", ...call, decision: "deny", by: "timeout" })
		.entry("p5", "p4", { type: "tool_approval", ...call, decision: "deny", by: "abort" });
}

function article(html: string, id: string): string {
	const start = html.lastIndexOf("<article ", html.indexOf(`id="e-${id}"`));
	return html.slice(start, html.indexOf("</article>", start) + "</article>".length);
}

describe("renderSessionHtml: tool approval entries", () => {
	it("shows each decision as a marker: what, who, the rule and the message", async () => {
		const html = await renderSessionHtml(approvals().input("p5"));
		expect(articleIds(sectionHtml(html, "conversation"))).toEqual(["p1", "p2", "p3", "p4", "p5"]);
		expect(article(html, "p1")).toContain(
			'<article class="entry kind-tool-approval marker on-path" id="e-p1" data-id="p1"><header class="entry-head"><span class="entry-title">Tool approval: <code>bash</code> <strong class="approval-allow">always allowed</strong> by the user · rule <code>bash(npm *)</code></span>',
		);
		expect(article(html, "p1")).toContain('<div class="note">approval mode ask: bash is not read-only</div>');
		expect(article(html, "p2")).toContain('<strong class="approval-allow">allowed</strong> by the policy · rule');
		expect(article(html, "p3")).toContain('<div class="note">Message: &lt;not&gt; now</div>');
		expect(article(html, "p4")).toContain('<strong class="approval-deny">denied</strong> after no answer in time');
		expect(article(html, "p5")).toContain('<strong class="approval-deny">denied</strong> when the run was aborted');
		expect(html).toContain("approval: bash allow_always (user)");
	});
});
