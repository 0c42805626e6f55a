import { describe, expect, it } from "vitest";
import { prepareCompaction } from "../../src/compaction/region.js";
import { inMemorySession } from "../../src/session/open.js";
import type { Session } from "../../src/session/session.js";
import { assistant, call, toolResult, user } from "../session/helpers.js";
import { numberedLines } from "./helpers.js";

const verbatim = { strategy: "verbatim-lines", promptVersion: 3 };

/** user (11 lines), assistant tool call, tool result (10 lines), assistant "done", user "thanks", with invisible entries between. */
function workSession(): { session: Session; ids: string[] } {
	const session = inMemorySession({ cwd: "/work" });
	const ids = [
		session.appendMessage(user(["task", ...numberedLines(10, "detail")].join("\n"))).id,
		session.appendMessage(assistant("", { calls: [call("c1", "read", { path: "a.txt" })] })).id,
	];
	session.appendModelChange("prov", "m2");
	session.appendCustomMessage({ customType: "hidden", content: "not sent", display: false, excludeFromContext: true });
	ids.push(session.appendMessage(toolResult("c1", numberedLines(10, "row").join("\n"))).id);
	ids.push(session.appendMessage(assistant("done")).id);
	session.appendCustomEntry("state", { n: 1 });
	ids.push(session.appendMessage(user("thanks")).id);
	return { session, ids };
}

const regionHead = [
	"[User]: task",
	...numberedLines(10, "detail"),
	"",
	'[Assistant tool calls]: read(path="a.txt")',
	"",
	"[Tool result]: row 1",
	...numberedLines(9, "row", 2),
];

describe("prepareCompaction", () => {
	it("keeps the newest two context-visible messages out of the region", () => {
		const { session, ids } = workSession();
		const preparation = prepareCompaction(session.getBranch());
		expect(preparation).toBeDefined();
		if (!preparation) return;
		expect(preparation.region.text).toBe(regionHead.join("\n"));
		expect(preparation.region.lines).toHaveLength(24);
		expect(preparation.firstKeptEntryId).toBe(ids[3]);
		expect(preparation.regionEntryIds).toEqual(ids.slice(0, 3));
		expect(preparation.keptTailMessageCount).toBe(2);
		// "[Assistant]: done\n\n[User]: thanks" is 33 characters.
		expect(preparation.tailTokens).toBe(9);
		expect(preparation.parameters).toEqual({ compression_ratio: 0.5, preserve_recent: 2, query: "thanks" });
	});

	it("puts everything into the region with preserve_recent 0", () => {
		const { session, ids } = workSession();
		const preparation = prepareCompaction(session.getBranch(), { options: { preserve_recent: 0 } });
		expect(preparation?.region.text).toBe([...regionHead, "", "[Assistant]: done", "", "[User]: thanks"].join("\n"));
		expect(preparation?.firstKeptEntryId).toBeNull();
		expect(preparation?.regionEntryIds).toEqual(ids);
		expect(preparation?.keptTailMessageCount).toBe(0);
		expect(preparation?.tailTokens).toBe(0);
	});

	it("does not align the tail to user turns", () => {
		const { session, ids } = workSession();
		const preparation = prepareCompaction(
			session.getBranch(),
			{ options: { preserve_recent: 3 } },
			{ allowSmallRegion: true },
		);
		// The tail begins with the tool result; its call stays in the region.
		expect(preparation?.firstKeptEntryId).toBe(ids[2]);
		expect(preparation?.region.lines.at(-1)).toBe('[Assistant tool calls]: read(path="a.txt")');
		expect(preparation?.keptTailMessageCount).toBe(3);
	});

	it("finds nothing to compact in a small region unless asked to", () => {
		const session = inMemorySession({ cwd: "/work" });
		session.appendMessage(user("one\ntwo"));
		session.appendMessage(assistant("three"));
		session.appendMessage(user("four"));
		session.appendMessage(assistant("five"));
		expect(prepareCompaction(session.getBranch())).toBeUndefined();
		const small = prepareCompaction(session.getBranch(), {}, { allowSmallRegion: true });
		expect(small?.region.text).toBe("[User]: one\ntwo\n\n[Assistant]: three");
		expect(
			prepareCompaction(session.getBranch(), { options: { preserve_recent: 4 } }, { allowSmallRegion: true }),
		).toBe(undefined);
	});

	it("starts after a previous boundary, with its summary as the region's head", () => {
		const session = inMemorySession({ cwd: "/work" });
		session.appendMessage(user("old question"));
		const kept = session.appendMessage(assistant("old answer"));
		const summary = ["[User]: goal", "<keepContext>", "never touch prod", "</keepContext>", "(filtered 40 lines)"].join(
			"\n",
		);
		session.appendCompaction({ summary, firstKeptEntryId: kept.id, tokensBefore: 500, details: verbatim });
		session.appendMessage(user(numberedLines(13, "new").join("\n")));
		session.appendMessage(assistant("ok"));
		session.appendMessage(user("next"));

		const preparation = prepareCompaction(session.getBranch());
		expect(preparation?.region.text).toBe(
			[summary, "[Assistant]: old answer", "", `[User]: new 1`, ...numberedLines(12, "new", 2)].join("\n"),
		);
		expect(preparation?.region.protectedRanges).toEqual([{ start: 2, end: 4 }]);
		expect([...(preparation?.region.priorMarkers ?? [])]).toEqual([[5, 40]]);
		expect(preparation?.regionEntryIds).toEqual([kept.id, session.getBranch()[3]?.id]);
		expect(preparation?.parameters.query).toBe("next");
	});

	it("starts right after a boundary whose first kept entry is null or not on the path", () => {
		for (const firstKeptEntryId of [null, "missing"]) {
			const session = inMemorySession({ cwd: "/work" });
			session.appendMessage(user("old question"));
			session.appendCompaction({ summary: "S", firstKeptEntryId, tokensBefore: 5, details: verbatim });
			session.appendMessage(user("new"));
			const preparation = prepareCompaction(
				session.getBranch(),
				{ options: { preserve_recent: 0 } },
				{ allowSmallRegion: true },
			);
			expect(preparation?.region.text).toBe("S\n[User]: new");
		}
	});

	it("ignores compaction entries of other strategies", () => {
		const session = inMemorySession({ cwd: "/work" });
		session.appendMessage(user("first"));
		session.appendCompaction({ summary: "lossy", firstKeptEntryId: null, tokensBefore: 5, details: { strategy: "x" } });
		session.appendMessage(user("second"));
		const preparation = prepareCompaction(
			session.getBranch(),
			{ options: { preserve_recent: 0 } },
			{ allowSmallRegion: true },
		);
		expect(preparation?.region.text).toBe("[User]: first\n\n[User]: second");
	});
});
