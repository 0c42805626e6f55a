import { describe, expect, it } from "vitest";
import { presentToolCall } from "../../src/acp/tool-presentation.js";

const CWD = "/home/dev/project";

describe("ACP tool call kinds, titles and locations", () => {
	it.each([
		["read", { path: "src/app.ts" }, "read", "Read src/app.ts", [{ path: `${CWD}/src/app.ts`, line: 1 }]],
		[
			"read",
			{ path: "src/app.ts", offset: 10, limit: 11 },
			"read",
			"Read src/app.ts (lines 10-20)",
			[{ path: `${CWD}/src/app.ts`, line: 10 }],
		],
		[
			"read",
			{ path: "/etc/hosts", offset: 5 },
			"read",
			"Read /etc/hosts (from line 5)",
			[{ path: "/etc/hosts", line: 5 }],
		],
		["write", { path: "notes.md", content: "x" }, "edit", "Write notes.md", [{ path: `${CWD}/notes.md` }]],
		[
			"edit",
			{ path: "../other/a.ts", edits: [] },
			"edit",
			"Edit /home/dev/other/a.ts",
			[{ path: "/home/dev/other/a.ts" }],
		],
		["bash", { command: "npm test\necho done" }, "execute", "Run npm test …", []],
		["grep", { pattern: "TODO", path: "src" }, "search", 'Search for "TODO" in src', [{ path: `${CWD}/src` }]],
		["grep", { pattern: "TODO" }, "search", 'Search for "TODO"', []],
		["find", { pattern: "*.ts", path: "test" }, "search", "Find *.ts in test", [{ path: `${CWD}/test` }]],
		["find", { pattern: "*.ts", path: "." }, "search", "Find *.ts", [{ path: CWD }]],
		["ls", {}, "read", "List .", []],
		["mcp__github__create_issue", { title: "x" }, "other", "create_issue (github)", []],
		["word_count", { path: "README.md" }, "other", "word_count", [{ path: `${CWD}/README.md` }]],
	] as const)("%s %j → %s %j", (tool, args, kind, title, locations) => {
		expect(presentToolCall(tool, args, CWD)).toEqual({ kind, title, locations });
	});

	it("shortens a long command to one line of at most 120 characters", () => {
		const { title } = presentToolCall("bash", { command: "x".repeat(300) }, CWD);
		expect(title).toHaveLength("Run ".length + 120);
		expect(title.endsWith("…")).toBe(true);
	});
});
