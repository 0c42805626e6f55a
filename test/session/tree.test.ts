import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { inMemorySession, openSession } from "../../src/session/open.js";
import type { TreeNode } from "../../src/session/types.js";
import { assistant, user, useTempDir } from "./helpers.js";

const temp = useTempDir();

/** The tree as nested ids, for exact comparisons. */
function shape(nodes: TreeNode[]): unknown[] {
	return nodes.map((node) => (node.children.length ? { [node.entry.id]: shape(node.children) } : node.entry.id));
}

describe("appends and the leaf", () => {
	it("chains appends under the leaf and branches from an earlier entry", () => {
		const session = inMemorySession({ cwd: "/work" });
		const q1 = session.appendMessage(user("q1"));
		const a1 = session.appendMessage(assistant("a1"));
		const q2 = session.appendMessage(user("q2"));
		expect([q1.parentId, a1.parentId, q2.parentId]).toEqual([null, q1.id, a1.id]);

		session.branch(a1.id);
		const q2b = session.appendMessage(user("q2 again"));
		expect(q2b.parentId).toBe(a1.id);
		expect(session.getBranch().map((e) => e.id)).toEqual([q1.id, a1.id, q2b.id]);
		expect(session.getBranch(q2.id).map((e) => e.id)).toEqual([q1.id, a1.id, q2.id]);
		expect(session.getChildren(a1.id).map((e) => e.id)).toEqual([q2.id, q2b.id]);
		expect(shape(session.getTree())).toEqual([{ [q1.id]: [{ [a1.id]: [q2.id, q2b.id] }] }]);

		session.resetLeaf();
		expect(session.leafId).toBeNull();
		expect(session.buildContext()).toEqual({ messages: [], model: null, thinkingLevel: "off" });
		const root2 = session.appendMessage(user("fresh start"));
		expect(root2.parentId).toBeNull();
		expect(shape(session.getTree())).toEqual([{ [q1.id]: [{ [a1.id]: [q2.id, q2b.id] }] }, root2.id]);
	});

	it("refuses unknown ids", () => {
		const session = inMemorySession({ cwd: "/work" });
		session.appendMessage(user("q1"));
		expect(() => session.branch("nope")).toThrow("Entry nope not found");
		expect(() => session.setLabel("nope", "x")).toThrow("Entry nope not found");
		expect(() => session.entriesSince("nope")).toThrow("Entry not found: nope");
	});

	it("sets and clears labels and names", () => {
		const session = inMemorySession({ cwd: "/work" });
		const q1 = session.appendMessage(user("q1"));
		const labelEntry = session.setLabel(q1.id, "checkpoint");
		expect(session.getLabel(q1.id)).toBe("checkpoint");
		expect(session.getTree()[0]).toMatchObject({ label: "checkpoint", labelTimestamp: labelEntry.timestamp });
		session.setLabel(q1.id);
		expect(session.getLabel(q1.id)).toBeUndefined();
		expect(session.getTree()[0]).not.toHaveProperty("label");

		expect(session.name).toBeUndefined();
		expect(() => session.setName("   ")).toThrow("Session name cannot be empty");
		session.setName("first");
		session.setName(" second ");
		expect(session.name).toBe("second");
	});

	it("reads the latest name after later entries, renames and a clear, whatever was read before", () => {
		const session = inMemorySession({ cwd: "/work" });
		expect(session.name).toBeUndefined();
		session.setName("first");
		expect(session.name).toBe("first");
		for (let index = 0; index < 5; index++) session.appendMessage(user(`q${index}`));
		expect(session.name).toBe("first");
		session.setName("second");
		session.appendMessage(user("after"));
		expect(session.name).toBe("second");
		expect(session.name).toBe("second");
	});
});

describe("cursor", () => {
	it("returns the entries strictly after an id in append order, across branches, with the leaf", () => {
		const session = inMemorySession({ cwd: "/work" });
		const q1 = session.appendMessage(user("q1"));
		const a1 = session.appendMessage(assistant("a1"));
		session.branch(q1.id);
		const a1b = session.appendMessage(assistant("a1b"));
		session.branch(a1.id);
		expect(session.entriesSince(q1.id)).toEqual({ entries: [a1, a1b], leafId: a1.id });
		expect(session.entriesSince(a1b.id)).toEqual({ entries: [], leafId: a1.id });
		expect(session.entries()).toEqual([q1, a1, a1b]);
	});
});

describe("trees read from files", () => {
	it("makes roots of entries whose parent is null, themselves or missing, and sorts children by time", () => {
		const header = { type: "session", version: 3, id: "t", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/work" };
		const at = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, "0")}.000Z`;
		const msg = (id: string, parentId: string | null, second: number) => ({
			type: "message",
			id,
			parentId,
			timestamp: at(second),
			message: user(id),
		});
		const path = join(temp.dir(), "tree.jsonl");
		const records = [
			header,
			msg("r1", null, 1),
			msg("late", "r1", 9),
			msg("early", "r1", 2),
			msg("self", "self", 3),
			msg("orphan", "gone", 4),
			msg("child", "orphan", 5),
			msg("cyc1", "cyc2", 6),
			msg("cyc2", "cyc1", 7),
		];
		writeFileSync(path, records.map((record) => `${JSON.stringify(record)}\n`).join(""));
		const session = temp.track(openSession(path));
		expect(shape(session.getTree())).toEqual([
			{ r1: ["early", "late"] },
			"self",
			{ orphan: ["child"] },
			{ cyc1: ["cyc2"] },
		]);
		expect(session.leafId).toBe("cyc2");
		expect(session.getBranch("child").map((e) => e.id)).toEqual(["orphan", "child"]);
		expect(session.getBranch("cyc2").map((e) => e.id)).toEqual(["cyc1", "cyc2"]);
		expect(session.getBranch("self").map((e) => e.id)).toEqual(["self"]);
	});
});
