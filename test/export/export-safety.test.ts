import { describe, expect, it } from "vitest";
import { renderSessionHtml } from "../../src/export/index.js";
import { EntryBuilder, embeddedData, sectionHtml, text, toolCall } from "./session-fixtures.js";

const SCRIPT = "<script>alert(1)</script>";
const IMAGE = "<img src=x onerror=alert(2)>";
const ATTACK = `${SCRIPT} ${IMAGE}`;

/** Session text carrying HTML in every place a session can hold text. */
function hostileSession(): EntryBuilder {
	const write = toolCall("call-1", `write${IMAGE}`, { path: `src/${ATTACK}.ts`, content: ATTACK });
	return new EntryBuilder()
		.entry("n0", null, { type: "session_info", name: ATTACK })
		.user("u1", "n0", `Hello ${ATTACK}`)
		.assistant("a1", "u1", [
			{ type: "thinking", thinking: `Thinking ${ATTACK}` },
			text(
				[
					`Markdown ${ATTACK}`,
					"",
					`<div onmouseover="alert(3)">block html</div>`,
					"",
					"[click](javascript:alert(4)) [tab](java\tscript:alert(5)) [data](data:text/html,<b>x</b>)",
					"[upper](JAVASCRIPT:alert(9)) [entity](&#106;avascript:alert(10)) [angle](<java\tscript:alert(11)>)",
					"",
					`\`\`\`"><script>alert(6)</script>\ncode ${SCRIPT}\n\`\`\``,
				].join("\n"),
			),
			write,
		])
		.toolResult("t1", "a1", write, `Output ${ATTACK}\n`, true, { diff: `+${ATTACK}`, fullOutputPath: `/tmp/${ATTACK}` })
		.message("b1", "t1", {
			role: "bashExecution",
			command: `cat ${ATTACK}`,
			output: ATTACK,
			exitCode: 1,
			cancelled: false,
			truncated: true,
			fullOutputPath: `/tmp/${ATTACK}.log`,
			timestamp: 0,
		})
		.entry("c1", "b1", { type: "custom_message", customType: ATTACK, content: ATTACK, display: true, details: ATTACK })
		.entry("k1", "c1", { type: "compaction", summary: ATTACK, firstKeptEntryId: ATTACK, tokensBefore: 10 })
		.entry("s1", "k1", {
			type: "branch_summary",
			fromId: ATTACK,
			summary: ATTACK,
			details: { readFiles: [ATTACK], modifiedFiles: [`${ATTACK}.ts`] },
		})
		.entry("l1", "s1", { type: "label", targetId: "u1", label: ATTACK })
		.entry("m1", "l1", { type: "model_change", provider: ATTACK, modelId: ATTACK })
		.entry("h1", "m1", { type: "thinking_level_change", thinkingLevel: ATTACK })
		.entry("x1", "h1", { type: "custom", customType: ATTACK, data: { note: ATTACK } })
		.foreign("f1", "x1", { type: ATTACK, note: ATTACK })
		.message("i1", "f1", {
			role: "user",
			content: [
				{ type: "image", mimeType: `image/png" onerror="alert(7)`, data: "AAAA" },
				{ type: "image", mimeType: "image/png", data: `AAAA" onerror="alert(8)` },
			],
			timestamp: 0,
		});
}

/** Every element name the page itself uses. */
const PAGE_TAGS = new Set(
	"html head meta title style noscript body div nav span ul li a main header h1 h2 dl dt dd code table thead tbody tr th td p details summary pre section article strong footer script img".split(
		" ",
	),
);

/** Opening tags with their attribute names; attribute values are double-quoted throughout the page. */
function tags(html: string): { name: string; attributes: string[] }[] {
	const found: { name: string; attributes: string[] }[] = [];
	for (const match of html.matchAll(/<([a-z][a-z0-9-]*)((?:\s+[^\s"'=<>]+(?:="[^"]*")?)*)\s*>/gi)) {
		const attributes = [...(match[2] ?? "").matchAll(/\s([^\s"'=<>]+)(?:="[^"]*")?/g)].map((part) => part[1] as string);
		found.push({ name: (match[1] as string).toLowerCase(), attributes });
	}
	return found;
}

describe("renderSessionHtml: escaping", () => {
	it("escapes HTML from every part of the session", async () => {
		const session = hostileSession();
		const html = await renderSessionHtml(
			session.input("i1", {
				header: { type: "session", id: ATTACK, timestamp: ATTACK, cwd: `/home/${ATTACK}`, parentSession: ATTACK },
				systemPrompt: ATTACK,
				tools: [{ name: ATTACK, description: ATTACK }],
			}),
		);
		expect(html).not.toMatch(/<script>alert/i);
		// No tag (an unescaped `<` up to its `>`) carries an event handler or a script URL.
		// Every tag's attributes, read with quoting respected: none is an event handler.
		const attributes = tags(html).flatMap((tag) => tag.attributes);
		expect(attributes.filter((attribute) => /^on/i.test(attribute))).toEqual([]);
		expect(tags(html).filter((tag) => !PAGE_TAGS.has(tag.name))).toEqual([]);
		expect(html).not.toMatch(/(href|src)\s*=\s*["']?\s*(javascript|data:text)/i);
		// Exactly our two script elements: the session data and the viewer script.
		expect(html.match(/<script\b/g)).toHaveLength(2);
		// The text itself is shown, escaped.
		expect(html).toContain("Hello &lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(2)&gt;");
		expect(html).toContain("&lt;div onmouseover=&quot;alert(3)&quot;&gt;block html&lt;/div&gt;");
		expect(html).toContain("Output &lt;script&gt;alert(1)&lt;/script&gt;");
		expect(html).toContain("src/&lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(2)&gt;.ts");
		// Unsafe link targets keep their text but lose the link.
		expect(html).toContain("<p>click [tab](java\tscript:alert(5)) data\nupper <a href=");
		// A character reference stays literal text in the URL: a harmless relative link.
		expect(html).toContain(
			'<a href="&amp;#106;avascript:alert(10)" rel="noopener noreferrer nofollow" target="_blank">entity</a> angle</p>',
		);
		// Images whose data could break out of the URL are not embedded.
		expect(html).not.toContain('src="data:image/png&quot;');
		expect(html.match(/class="image-missing"/g)).toHaveLength(2);
	});

	it("keeps hostile text intact in the embedded data", async () => {
		const session = hostileSession();
		const html = await renderSessionHtml(session.input("i1"));
		expect(embeddedData(html)).toEqual({ header: session.input("i1").header, entries: session.entries, leafId: "i1" });
	});
});

describe("renderSessionHtml: self-contained", () => {
	it("references no remote resource; remote links in markdown stay anchors", async () => {
		const session = new EntryBuilder()
			.user("u1", null, "See https://example.com/docs and ![logo](https://example.com/logo.png)")
			.assistant("a1", "u1", [text("[docs](http://example.org/page) <https://example.net>")]);
		const html = await renderSessionHtml(session.input("a1"));
		const remote = [...html.matchAll(/<([a-z]+)\b[^>]*\b(src|href)\s*=\s*["']?\s*(https?:|\/\/)/gi)];
		expect(remote.length).toBe(4);
		for (const match of remote) expect([match[1], match[2]]).toEqual(["a", "href"]);
		expect(html).not.toMatch(/\ssrc\s*=\s*["']?\s*(https?:|\/\/)/i);
		expect(html).not.toMatch(/<link\b|@import|url\(\s*["']?\s*(https?:|\/\/)/i);
		expect(html).toContain(
			'<a href="https://example.com/logo.png" rel="noopener noreferrer nofollow" target="_blank">[image: logo]</a>',
		);
	});

	it("never includes model headers or keys, in the page or in its data", async () => {
		const model = {
			id: "m",
			provider: "acme",
			api: "openai-completions",
			baseUrl: "http://localhost:1",
			headers: { Authorization: "Bearer secret-header-value" },
			apiKey: "secret-key-value",
		};
		const session = new EntryBuilder()
			.user("u1", null, "hi")
			.entry("x1", "u1", { type: "custom", customType: "model-cache", data: { model } });
		const html = await renderSessionHtml(session.input("x1"));
		expect(html).not.toContain("secret-header-value");
		expect(html).not.toContain("secret-key-value");
		const data = embeddedData(html) as { entries: { data?: { model?: Record<string, unknown> } }[] };
		expect(data.entries[1]?.data?.model).toEqual({
			id: "m",
			provider: "acme",
			api: "openai-completions",
			baseUrl: "http://localhost:1",
		});
		expect(sectionHtml(html, "conversation")).toContain("&quot;baseUrl&quot;");
	});
});
