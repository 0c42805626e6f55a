import { copyFileSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { COMPACTION_PREAMBLE } from "../../src/session/context.js";
import { openSession } from "../../src/session/open.js";
import { failingIo, user, useTempDir, warnings } from "./helpers.js";

const temp = useTempDir();
const FIXTURES = join(import.meta.dirname, "fixtures");

function copyFixture(name: string): string {
	const path = join(temp.dir(), name);
	copyFileSync(join(FIXTURES, name), path);
	return path;
}

function open(path: string) {
	const { warn, lines } = warnings();
	const session = temp.track(openSession(path, { warn }));
	expect(lines).toEqual([]);
	return session;
}

describe("reference format version 1 (no ids)", () => {
	it("assigns stable ids, chains the entries and maps the compaction's entry index to an id", () => {
		const path = copyFixture("v1-session.jsonl");
		const original = readFileSync(path, "utf8");
		const session = open(path);
		const entries = session.entries();
		expect(entries.map((e) => e.type)).toEqual([
			"thinking_level_change",
			"message",
			"message",
			"compaction",
			"message",
		]);
		for (const [index, entry] of entries.entries()) {
			expect(entry.id).toMatch(/^[0-9a-f]{8}$/);
			expect(entry.parentId).toBe(index === 0 ? null : entries[index - 1]?.id);
		}
		const compaction = entries[3];
		expect(compaction?.type === "compaction" && compaction.firstKeptEntryId).toBe(entries[2]?.id);
		expect(session.header.version).toBe(3);
		expect(session.leafId).toBe(entries[4]?.id);

		const context = session.buildContext();
		expect(context.thinkingLevel).toBe("low");
		expect(context.model).toEqual({ provider: "anthropic", modelId: "claude-x" });
		expect(context.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
		expect(readFileSync(path, "utf8")).toBe(original);

		session.close();
		expect(
			open(path)
				.entries()
				.map((e) => e.id),
		).toEqual(entries.map((e) => e.id));
	});

	it("rewrites the file once in the current format before the first append", () => {
		const path = copyFixture("v1-session.jsonl");
		const session = open(path);
		const ids = session.entries().map((e) => e.id);
		const added = session.appendMessage(user("third question"));
		session.close();

		const lines = readFileSync(path, "utf8")
			.trimEnd()
			.split("\n")
			.map((line) => JSON.parse(line));
		expect(lines[0]).toEqual({
			type: "session",
			version: 3,
			id: "legacy-v1",
			timestamp: "2025-06-01T10:00:00.000Z",
			cwd: "/projects/legacy",
		});
		expect(lines.slice(1).map((line) => line.id)).toEqual([...ids, added.id]);
		expect(lines[4]).not.toHaveProperty("firstKeptEntryIndex");
		const reopened = open(path);
		expect(reopened.entries().map((e) => e.id)).toEqual([...ids, added.id]);
		expect(added.parentId).toBe(ids.at(-1));
	});

	it("leaves the old file intact when the rewrite fails", () => {
		const path = copyFixture("v1-session.jsonl");
		const original = readFileSync(path, "utf8");
		const io = failingIo();
		const session = temp.track(openSession(path, { io }));
		const entries = [...session.entries()];
		io.failWrites = 1;
		expect(() => session.appendMessage(user("third question"))).toThrow("ENOSPC");
		expect(readFileSync(path, "utf8")).toBe(original);
		// No temporary file is left; the lock of the open session is there until it is closed.
		expect(readdirSync(temp.dir())).toEqual(["v1-session.jsonl", "v1-session.jsonl.lock"]);
		expect(session.entries()).toEqual(entries);
		session.appendMessage(user("third question"));
		expect(readFileSync(path, "utf8")).toContain('"version":3');
	});
});

describe("reference format version 2", () => {
	it("renames the hookMessage role to custom without touching the file until an append", () => {
		const path = copyFixture("v2-session.jsonl");
		const original = readFileSync(path, "utf8");
		const session = open(path);
		const hook = session.getEntry("0b0b0b0b");
		expect(hook?.type === "message" && hook.message).toEqual({
			role: "custom",
			customType: "reminder",
			content: "a hook said this",
			display: true,
			timestamp: 1756720802000,
		});
		expect(session.buildContext().messages.map((m) => m.role)).toEqual(["user", "custom", "assistant"]);
		expect(readFileSync(path, "utf8")).toBe(original);

		session.appendMessage(user("more"));
		session.close();
		const text = readFileSync(path, "utf8");
		expect(text).toContain('"version":3');
		expect(text).not.toContain("hookMessage");
		expect(open(path).entries()).toHaveLength(4);
	});
});

describe("reference format version 3", () => {
	it("loads a file with reference-only entry types and header fields as it is", () => {
		const path = copyFixture("reference-v3.jsonl");
		const session = open(path);
		expect(session.header).toMatchObject({
			internal: true,
			workflow: { runId: "r1", stageId: "s1", stageName: "plan" },
		});
		expect(session.entries()).toHaveLength(11);
		expect(session.name).toBe("bug fix");
		expect(session.leafId).toBe("a000000b");
		const context = session.buildContext();
		expect(context.model).toEqual({ provider: "anthropic", modelId: "claude-x" });
		expect(context.thinkingLevel).toBe("high");
		expect(context.messages.map((m) => m.role)).toEqual(["custom", "assistant"]);
		expect(context.messages[0]).toMatchObject({
			customType: "compaction",
			content: [
				{
					type: "text",
					text: `${COMPACTION_PREAMBLE}\n\n[User]: fix the bug\n(filtered 2 lines)\n\n[Tool result]: export const a = 1;\n\n[User]: stage admitted`,
				},
			],
		});
		expect(session.buildContextEntries().map((e) => e.id)).toEqual(["a0000008", "a0000005", "a0000006", "a0000009"]);
	});
});
