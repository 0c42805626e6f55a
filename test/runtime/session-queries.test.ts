/**
 * The session's tree and fork candidates in process. The RPC test (test/rpc/sessions.test.ts)
 * keeps get_entries with its cursor and refusal as a client reads them.
 */
import { describe, expect, it } from "vitest";
import type { TreeNode } from "../../src/session/types.js";
import { textReply } from "../support/llm-server.js";
import { startSession } from "./helpers.js";

describe("session queries", () => {
	it("getTree nests the entries under their parents", async () => {
		const { session } = startSession({ steps: [textReply("one"), textReply("two")] });
		expect(session.getTree()).toEqual({ tree: [], leafId: null });
		await session.prompt("first");
		await session.prompt("second");
		const { entries } = session.getEntries();
		const { tree, leafId } = session.getTree();
		expect(leafId).toBe(entries[3]?.id);
		expect(tree).toHaveLength(1);
		const chain: unknown[] = [];
		let nodes: TreeNode[] = tree;
		while (nodes.length > 0) {
			expect(nodes).toHaveLength(1);
			const node = nodes[0] as TreeNode;
			chain.push(node.entry);
			nodes = node.children;
		}
		expect(chain).toEqual(entries);
	});

	it("getForkMessages lists user messages with their entry ids", async () => {
		const { session } = startSession({ steps: [textReply("one"), textReply("two")] });
		expect(session.getForkMessages()).toEqual([]);
		await session.prompt("first");
		await session.prompt("second");
		const { entries } = session.getEntries();
		expect(session.getForkMessages()).toEqual([
			{ entryId: entries[0]?.id, text: "first" },
			{ entryId: entries[2]?.id, text: "second" },
		]);
	});
});
