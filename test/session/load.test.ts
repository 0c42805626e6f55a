import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createSession, openSession } from "../../src/session/open.js";
import { isKnownEntry } from "../../src/session/types.js";
import { assistant, call, toolResult, user, useTempDir, warnings } from "./helpers.js";

const temp = useTempDir();

const header = { type: "session", version: 3, id: "s-1", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/work" };
function entry(id: string, parentId: string | null, text: string, role: "user" | "assistant" = "user") {
	const message = role === "user" ? user(text) : assistant(text);
	return { type: "message", id, parentId, timestamp: "2026-01-01T00:00:01.000Z", message };
}

function writeLines(name: string, records: unknown[], ending = "\n"): string {
	const path = join(temp.dir(), name);
	writeFileSync(
		path,
		records.map((record) => (typeof record === "string" ? record : JSON.stringify(record)) + ending).join(""),
	);
	return path;
}

/** Loads a file and returns the session with the warnings printed while loading it. */
function load(path: string) {
	const { warn, lines } = warnings();
	const session = temp.track(openSession(path, { warn }));
	return { session, warnings: lines };
}

function reloadIsClean(path: string): void {
	const { session, warnings: warned } = load(path);
	session.close();
	expect(warned).toEqual([]);
	for (const line of readFileSync(path, "utf8").split("\n").slice(0, -1)) expect(() => JSON.parse(line)).not.toThrow();
}

describe("torn last lines", () => {
	it("adds the missing LF before the next record when the last line is a valid entry", () => {
		const path = writeLines("valid-tail.jsonl", [
			header,
			entry("a1", null, "one"),
			entry("a2", "a1", "two", "assistant"),
		]);
		writeFileSync(path, readFileSync(path, "utf8").slice(0, -1));
		const { session, warnings: warned } = load(path);
		expect(warned).toEqual([]);
		expect(session.entries().map((e) => e.id)).toEqual(["a1", "a2"]);
		const next = session.appendMessage(user("three"));
		session.close();
		const text = readFileSync(path, "utf8");
		expect(text.endsWith(`${JSON.stringify(entry("a2", "a1", "two", "assistant"))}\n${JSON.stringify(next)}\n`)).toBe(
			true,
		);
		reloadIsClean(path);
	});

	it("cuts an unusable last line back to the last complete line before the next record", () => {
		const path = writeLines("torn-tail.jsonl", [
			header,
			entry("a1", null, "one"),
			entry("a2", "a1", "two", "assistant"),
		]);
		const complete = readFileSync(path, "utf8");
		appendFileSync(path, '{"type":"message","id":"a3","parentId":"a2","timestamp":"2026-01-01T00:0');
		const { session, warnings: warned } = load(path);
		expect(warned).toEqual([`Warning: skipped 1 invalid line in ${path}`]);
		expect(session.leafId).toBe("a2");
		const next = session.appendMessage(user("three"));
		session.close();
		expect(readFileSync(path, "utf8")).toBe(`${complete}${JSON.stringify(next)}\n`);
		reloadIsClean(path);
	});

	it("skips invalid lines in the middle and counts them in one warning", () => {
		const path = writeLines("middle.jsonl", [
			header,
			entry("a1", null, "one"),
			"{not json",
			'{"type":"message","id":"bad","parentId":null,"timestamp":"x","message":{"role":"user"}}',
			"42",
			"",
			entry("a2", "a1", "two", "assistant"),
		]);
		const { session, warnings: warned } = load(path);
		expect(warned).toEqual([`Warning: skipped 3 invalid lines in ${path}`]);
		expect(session.entries().map((e) => e.id)).toEqual(["a1", "a2"]);
	});
});

describe("line endings and encoding", () => {
	it("accepts CRLF line endings and appends LF lines after them", () => {
		const path = writeLines(
			"crlf.jsonl",
			[header, entry("a1", null, "one"), entry("a2", "a1", "two", "assistant")],
			"\r\n",
		);
		const { session, warnings: warned } = load(path);
		expect(warned).toEqual([]);
		expect(session.entries().map((e) => e.id)).toEqual(["a1", "a2"]);
		expect(session.buildContext().messages.map((m) => m.role)).toEqual(["user", "assistant"]);
		session.appendMessage(user("three"));
		session.close();
		reloadIsClean(path);
	});

	it("reassembles multi-byte characters split across read chunks", () => {
		const text = "✓".repeat(400_000);
		for (let pad = 0; pad < 3; pad++) {
			const padded = { ...header, cwd: `/work${"x".repeat(pad)}` };
			const path = writeLines(`utf8-${pad}.jsonl`, [padded, entry("a1", null, text)]);
			const { session, warnings: warned } = load(path);
			expect(warned).toEqual([]);
			const first = session.entries()[0];
			expect(first && isKnownEntry(first) && first.type === "message" && first.message).toEqual(user(text));
		}
	});
});

describe("files that are not sessions", () => {
	it("names the path when the first object is not a session header", () => {
		const path = writeLines("other.jsonl", [{ type: "message", id: "x" }]);
		expect(() => openSession(path)).toThrow(`Not an Atomic session file: ${path}`);
	});

	it("rejects a header without a string id", () => {
		const path = writeLines("no-id.jsonl", [{ type: "session", id: 7 }]);
		expect(() => openSession(path)).toThrow(`Not an Atomic session file: ${path}`);
	});

	it("rejects a non-empty file in which nothing parses", () => {
		const path = writeLines("garbage.jsonl", ["hello", "world"]);
		expect(() => openSession(path)).toThrow(`Not an Atomic session file: ${path}`);
	});
});

describe("round trips", () => {
	it("reloads every entry type exactly as it was appended", () => {
		const session = createSession({ cwd: temp.dir(), sessionDir: temp.dir() });
		const question = session.appendMessage(user("read a.txt"));
		session.appendMessage(assistant("", { calls: [call("c1")] }));
		session.appendMessage(toolResult("c1", "contents"));
		session.appendMessage({
			role: "bashExecution",
			command: "ls",
			output: "a.txt\n",
			exitCode: 0,
			cancelled: false,
			truncated: false,
			timestamp: 4,
		});
		session.appendModelChange("test", "model-b");
		session.appendThinkingLevelChange("high");
		session.appendCompaction({
			summary: "[User]: read a.txt",
			firstKeptEntryId: question.id,
			tokensBefore: 1234,
			details: { strategy: "verbatim-lines", promptVersion: 3 },
		});
		session.appendCustomEntry("ext-state", { counter: 1 });
		session.appendCustomEntry("ext-marker");
		session.appendCustomMessage({ customType: "note", content: "remember this", display: true, details: { n: 1 } });
		session.branchWithSummary(question.id, "we tried something else", {
			details: { readFiles: [], modifiedFiles: [] },
		});
		session.setLabel(question.id, "start");
		session.setLabel(question.id);
		session.setName("round trip");
		const file = session.file ?? "";
		const entries = [...session.entries()];
		session.close();

		const { session: reloaded, warnings: warned } = load(file);
		expect(warned).toEqual([]);
		expect(reloaded.entries()).toEqual(entries);
		expect(reloaded.leafId).toBe(entries.at(-1)?.id);
		expect(reloaded.name).toBe("round trip");
		expect(reloaded.getLabel(question.id)).toBeUndefined();
		expect(entries.map((e) => e.type)).toEqual([
			"message",
			"message",
			"message",
			"message",
			"model_change",
			"thinking_level_change",
			"compaction",
			"custom",
			"custom",
			"custom_message",
			"branch_summary",
			"label",
			"label",
			"session_info",
		]);
		for (const e of entries) expect(e.id).toMatch(/^[0-9a-f]{8}$/);
	});

	it("keeps entries of unknown types in the tree and out of the context", () => {
		const foreign = {
			type: "context_window_change",
			id: "f1",
			parentId: "a1",
			timestamp: "2026-01-01T00:00:02.000Z",
			contextWindow: 200000,
			nested: { keep: [1, 2, 3] },
		};
		const path = writeLines("foreign.jsonl", [
			header,
			entry("a1", null, "one"),
			foreign,
			entry("a2", "f1", "two", "assistant"),
		]);
		const { session, warnings: warned } = load(path);
		expect(warned).toEqual([]);
		expect(session.getEntry("f1")).toEqual(foreign);
		expect(session.getBranch().map((e) => e.id)).toEqual(["a1", "f1", "a2"]);
		expect(session.buildContext().messages.map((m) => m.role)).toEqual(["user", "assistant"]);
		session.appendMessage(user("three"));
		session.close();
		expect(readFileSync(path, "utf8")).toContain(`${JSON.stringify(foreign)}\n`);
	});
});
