import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
	FrontmatterError,
	parseFrontmatter,
	type ResourceDiagnostic,
	readMarkdownResource,
	splitFrontmatter,
} from "../../src/resources/frontmatter.js";
import { makeTempRoot, writeTree } from "./temp-tree.js";

describe("splitFrontmatter", () => {
	it("separates the YAML block from the body", () => {
		expect(splitFrontmatter("---\nname: a\n---\nBody\n")).toEqual({ yaml: "name: a", body: "Body\n" });
	});

	it("tolerates CRLF line endings and a BOM", () => {
		expect(splitFrontmatter("\uFEFF---\r\nname: a\r\nx: 1\r\n---\r\nLine 1\r\nLine 2")).toEqual({
			yaml: "name: a\nx: 1",
			body: "Line 1\nLine 2",
		});
	});

	it("treats text without an opening or closing delimiter as all body", () => {
		expect(splitFrontmatter("Just text\n---\nmore")).toEqual({ yaml: undefined, body: "Just text\n---\nmore" });
		expect(splitFrontmatter("---\nname: a\nno end")).toEqual({ yaml: undefined, body: "---\nname: a\nno end" });
	});

	it("accepts an empty block", () => {
		expect(splitFrontmatter("---\n---\nBody")).toEqual({ yaml: "", body: "Body" });
	});
});

describe("parseFrontmatter", () => {
	it("parses the YAML into a plain object", async () => {
		const parsed = await parseFrontmatter("---\nname: a\nlist: [1, 2]\nflag: true\n---\nBody", "/x/a.md");
		expect(parsed).toEqual({ attributes: { name: "a", list: [1, 2], flag: true }, body: "Body" });
	});

	it("gives an empty object and the whole text without frontmatter", async () => {
		expect(await parseFrontmatter("Hello\nworld", "/x/a.md")).toEqual({ attributes: {}, body: "Hello\nworld" });
		expect(await parseFrontmatter("---\n---\nBody", "/x/a.md")).toEqual({ attributes: {}, body: "Body" });
	});

	it("rejects invalid YAML with an error naming the file", async () => {
		const error = await parseFrontmatter("---\nname: [unclosed\n---\nBody", "/x/bad.md").catch((e: unknown) => e);
		expect(error).toBeInstanceOf(FrontmatterError);
		expect((error as FrontmatterError).message).toMatch(/^\/x\/bad\.md: invalid YAML frontmatter: /);
		expect((error as FrontmatterError).filePath).toBe("/x/bad.md");
		expect((error as FrontmatterError).cause).toBeInstanceOf(Error);
	});

	it("rejects frontmatter that is not a mapping", async () => {
		await expect(parseFrontmatter("---\n- a\n- b\n---\nBody", "/x/list.md")).rejects.toThrow(
			"/x/list.md: frontmatter must be a YAML mapping",
		);
	});
});

describe("readMarkdownResource", () => {
	let root: string;
	let remove: () => void;
	beforeEach(() => {
		({ root, remove } = makeTempRoot());
	});
	afterEach(() => remove());

	it("turns invalid YAML and unreadable files into diagnostics", async () => {
		writeTree(root, { "bad.md": "---\nkey: : :\n  - x\n---\n", "good.md": "---\na: 1\n---\nText" });
		const diagnostics: ResourceDiagnostic[] = [];
		expect(await readMarkdownResource(join(root, "good.md"), diagnostics)).toEqual({
			attributes: { a: 1 },
			body: "Text",
		});
		expect(await readMarkdownResource(join(root, "bad.md"), diagnostics)).toBeUndefined();
		expect(await readMarkdownResource(join(root, "missing.md"), diagnostics)).toBeUndefined();
		expect(diagnostics.map((diagnostic) => diagnostic.path)).toEqual([join(root, "bad.md"), join(root, "missing.md")]);
		expect(diagnostics[0]?.message).toMatch(/^invalid YAML frontmatter: /);
		expect(diagnostics[1]?.message).toMatch(/^cannot read file: ENOENT/);
	});
});
