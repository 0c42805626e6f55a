import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, relative } from "node:path";
import { Script } from "node:vm";
import { afterAll, describe, expect, it } from "vitest";
import { exportSessionHtml, renderSessionHtml } from "../../src/export/index.js";
import { PAGE_SCRIPT } from "../../src/export/script.js";
import {
	articleIds,
	EntryBuilder,
	embeddedData,
	HEADER,
	sectionHtml,
	text,
	toolCall,
	usage,
} from "./session-fixtures.js";

function linearSession(): EntryBuilder {
	const read = toolCall("call-1", "read", { path: "src/main.ts" });
	return new EntryBuilder()
		.entry("m0", null, { type: "model_change", provider: "anthropic", modelId: "claude-test" })
		.user("u1", "m0", "Please explain the main module")
		.assistant("a1", "u1", [text("Let me read it."), read], { usage: usage(1200, 80, 3000, 500, 0.0125) })
		.toolResult("t1", "a1", read, "export const answer = 42;\n")
		.assistant("a2", "t1", [text("It is **bold** and has code:\n\n```ts\nconst answer: number = 42;\n```\n")], {
			usage: usage(300, 1000, 4200, 0, 0.0375),
			provider: "openai",
			model: "gpt-test",
			api: "openai-responses",
		})
		.entry("n1", "a2", { type: "session_info", name: "Explaining main" });
}

/**
 *      u1 ─ a1 ─┬─ u2 ─ a2          (older branch)
 *               └─ u3 ─ a3 (leaf)   (newer branch, active)
 */
function branchedSession(): EntryBuilder {
	return new EntryBuilder()
		.user("u1", null, "Start here")
		.assistant("a1", "u1", [text("Ready.")])
		.user("u2", "a1", "First attempt on the old branch")
		.assistant("a2", "u2", [text("Old answer")])
		.user("u3", "a1", "Second attempt on the new branch")
		.assistant("a3", "u3", [text("New answer")]);
}

describe("renderSessionHtml: page", () => {
	it("is one HTML document with the header facts, user text, markdown and highlighted code", async () => {
		const html = await renderSessionHtml(linearSession().input("n1"));
		expect(html.startsWith("<!DOCTYPE html>\n<html")).toBe(true);
		expect(html.trimEnd().endsWith("</html>")).toBe(true);
		expect(html).toContain("<h1>Explaining main</h1>");
		expect(html).toContain(`<code>${HEADER.id}</code>`);
		expect(html).toContain("<code>/home/dev/project</code>");
		expect(html).toContain("2026-01-02 03:04:05 UTC");
		expect(html).toContain("<code>anthropic/claude-test</code>, <code>openai/gpt-test</code>");
		expect(html).toContain("Please explain the main module");
		expect(html).toContain("<strong>bold</strong>");
		expect(html).toContain('<code class="hljs language-ts"><span class="hljs-keyword">const</span>');
		// Tool call arguments as highlighted pretty JSON.
		expect(html).toContain('<span class="tool-name">read</span>');
		expect(html).toContain(
			'<span class="hljs-attr">&quot;path&quot;</span>: <span class="hljs-string">&quot;src/main.ts&quot;</span>',
		);
	});

	it("sums tokens and cost over all assistant messages and counts messages", async () => {
		const html = await renderSessionHtml(linearSession().input("n1"));
		const total = (key: string) => new RegExp(`data-total="${key}">([^<]*)<`).exec(html)?.[1];
		expect(total("input")).toBe("1,500");
		expect(total("output")).toBe("1,080");
		expect(total("cache-read")).toBe("7,200");
		expect(total("cache-write")).toBe("500");
		expect(total("cost")).toBe("$0.0500");
		const count = (key: string) => new RegExp(`data-count="${key}">([^<]*)<`).exec(html)?.[1];
		expect(count("entries")).toBe("6");
		expect(count("messages")).toBe("4");
		expect(count("user")).toBe("1");
		expect(count("assistant")).toBe("2");
		expect(count("toolResult")).toBe("1");
		expect(count("tool-calls")).toBe("1");
	});

	it("counts usage on every branch, not only the active one", async () => {
		const session = branchedSession();
		const html = await renderSessionHtml(session.input("a3"));
		expect(/data-total="input">([^<]*)</.exec(html)?.[1]).toBe("0");
		const priced = new EntryBuilder()
			.user("u1", null, "q")
			.assistant("a1", "u1", [text("x")], { usage: usage(10, 1, 0, 0, 0.25) })
			.assistant("a2", "u1", [text("y")], { usage: usage(20, 2, 0, 0, 0.5) });
		const pricedHtml = await renderSessionHtml(priced.input("a2"));
		expect(/data-total="input">([^<]*)</.exec(pricedHtml)?.[1]).toBe("30");
		expect(/data-total="cost">([^<]*)</.exec(pricedHtml)?.[1]).toBe("$0.7500");
	});

	it("shows the active branch in order and keeps the other branch reachable in the tree", async () => {
		const html = await renderSessionHtml(branchedSession().input("a3"));
		expect(articleIds(sectionHtml(html, "conversation"))).toEqual(["u1", "a1", "u3", "a3"]);
		expect(articleIds(sectionHtml(html, "other-entries"))).toEqual(["u2", "a2"]);
		const tree = html.slice(html.indexOf('<nav class="sidebar"'), html.indexOf("</nav>"));
		const node = (id: string) =>
			new RegExp(`<a class="([^"]*)" href="#e-${id}" data-id="${id}" data-parent="([^"]*)"`).exec(tree);
		expect(node("u2")?.[2]).toBe("a1");
		expect(node("a2")?.[1]).toBe("tree-node tree-assistant");
		expect(node("u3")?.[1]).toBe("tree-node tree-user on-path");
		expect(node("a3")?.[1]).toBe("tree-node tree-assistant on-path leaf");
		// The branch point is marked in the tree and in the conversation.
		expect(tree).toContain('title="2 branches">⑂2</span>');
		expect(html).toContain("⑂ 2 branches from here");
		// Only the branch point opens a nested list.
		expect(tree.match(/<ul class="tree">/g)).toHaveLength(2);
	});

	it("follows an unknown leaf to the last entry and shows nothing for a null leaf", async () => {
		const unknown = await renderSessionHtml(branchedSession().input("missing"));
		expect(articleIds(sectionHtml(unknown, "conversation"))).toEqual(["u1", "a1", "u3", "a3"]);
		const empty = await renderSessionHtml(branchedSession().input(null));
		expect(articleIds(sectionHtml(empty, "conversation"))).toEqual([]);
		expect(articleIds(sectionHtml(empty, "other-entries"))).toEqual(["u1", "a1", "u2", "a2", "u3", "a3"]);
	});

	it("keeps entries caught in a parent cycle in the tree", async () => {
		const session = new EntryBuilder().user("x", "y", "in a cycle").user("y", "x", "also in it");
		const html = await renderSessionHtml(session.input(null));
		expect(html).toContain('data-id="x" data-parent=""');
		expect(html).toContain('data-id="y" data-parent="x"');
	});

	it("embeds the session as base64 JSON that decodes back to the input", async () => {
		const input = linearSession().input("n1", {
			systemPrompt: "You are a careful assistant.",
			tools: [{ name: "read", description: "Reads a file" }],
		});
		const html = await renderSessionHtml(input);
		expect(embeddedData(html)).toEqual({
			header: input.header,
			entries: input.entries,
			leafId: "n1",
			systemPrompt: "You are a careful assistant.",
			tools: [{ name: "read", description: "Reads a file" }],
		});
		expect(html).toContain('<a id="download-jsonl" class="download" href="#" hidden>');
		expect(html).toContain(
			'<details class="context-info"><summary>System prompt</summary><pre class="output">You are a careful assistant.</pre></details>',
		);
		expect(html).toContain("<summary>Tools (1)</summary><dl><dt>read</dt><dd>Reads a file</dd></dl>");
	});

	it("renders 5,000 entries, one article each, without nesting a linear chain", async () => {
		// Timing belongs in the benchmarks (npm run bench); this checks the shape of a large export.
		const html = await renderSessionHtml(chatSession(5000).input("b1249"));
		expect(articleIds(sectionHtml(html, "conversation"))).toHaveLength(5000);
		expect(html.match(/<ul class="tree">/g)).toHaveLength(1);
		expect(/data-total="input">([^<]*)</.exec(html)?.[1]).toBe("12,500");
	});
});

/** A linear session of `size` entries: user, assistant with a tool call, tool result, assistant with code. */
function chatSession(size: number): EntryBuilder {
	const session = new EntryBuilder();
	let parent: string | null = null;
	for (let turn = 0; turn < size / 4; turn++) {
		const call = toolCall(`call-${turn}`, "bash", { command: `echo ${turn}` });
		session
			.user(`u${turn}`, parent, `Question ${turn} with *emphasis* and \`code\``)
			.assistant(`a${turn}`, `u${turn}`, [text(`Answer **${turn}**:\n\n- one\n- two\n`), call], {
				usage: usage(10, 2, 0, 0, 0.001),
			})
			.toolResult(`t${turn}`, `a${turn}`, call, `${turn}\n`)
			.assistant(`b${turn}`, `t${turn}`, [text("```js\nconsole.log(1)\n```")]);
		parent = `b${turn}`;
	}
	expect(session.entries).toHaveLength(size);
	return session;
}

describe("page script", () => {
	it("is valid JavaScript and holds no session text", () => {
		expect(() => new Script(PAGE_SCRIPT)).not.toThrow();
		expect(PAGE_SCRIPT).not.toMatch(/<\/script|innerHTML|insertAdjacentHTML|document\.write|eval\(/i);
	});
});

describe("exportSessionHtml", () => {
	const directory = mkdtempSync(join(tmpdir(), "atomic-export-"));
	afterAll(() => rmSync(directory, { recursive: true, force: true }));

	it("writes the page, creating parent folders, and returns the absolute path", async () => {
		const input = branchedSession().input("a3");
		const target = join(directory, "nested", "deeper", "session.html");
		const written = await exportSessionHtml(input, relative(process.cwd(), target));
		expect(isAbsolute(written)).toBe(true);
		expect(written).toBe(target);
		expect(readFileSync(written, "utf8")).toBe(await renderSessionHtml(input));
	});
});
