import { describe, expect, it } from "vitest";
import {
	compactionEntryFields,
	prepareCompaction,
	type RequestPlanner,
	runCompaction,
} from "../../src/compaction/index.js";
import { COMPACTION_PREAMBLE } from "../../src/session/context.js";
import { inMemorySession } from "../../src/session/open.js";
import { assistant, user } from "../session/helpers.js";
import { numberedLines, plannerReply } from "./helpers.js";

/** A planner that always deletes the given ranges. */
const deleting =
	(text: string): RequestPlanner =>
	async () =>
		plannerReply(text);

describe("compacting a session twice", () => {
	it("persists the compacted text, rebuilds context from it, and folds old markers on the next round", async () => {
		const session = inMemorySession({ cwd: "/work" });
		session.appendMessage(user(["goal", ...numberedLines(10, "old")].join("\n")));
		session.appendMessage(assistant(numberedLines(10, "plan").join("\n")));
		const keptReply = session.appendMessage(assistant("latest"));
		session.appendMessage(user("continue"));

		const first = prepareCompaction(session.getBranch());
		expect(first?.region.lines).toHaveLength(22);
		if (!first) return;
		// Lines 2-11 hold "old 1".."old 10", line 13 "[Assistant]: plan 1", lines 14-22 "plan 2".."plan 10".
		const { result } = await runCompaction({
			preparation: first,
			urgency: "recoverable",
			contextWindow: 200_000,
			wholeContextTokensBefore: 300,
			requestPlanner: deleting("2,11\n14,21\n"),
		});
		expect(result.compactedText).toBe(
			["[User]: goal", "(filtered 10 lines)", "", "[Assistant]: plan 1", "(filtered 8 lines)", "plan 10"].join("\n"),
		);
		expect(result.firstKeptEntryId).toBe(keptReply.id);
		session.appendCompaction(compactionEntryFields(result));
		expect(session.buildContext().messages[0]).toMatchObject({
			role: "custom",
			customType: "compaction",
			content: [
				{
					type: "text",
					text: `${COMPACTION_PREAMBLE}\n\n${result.compactedText}\n\n[Assistant]: latest\n\n[User]: continue`,
				},
			],
		});

		session.appendMessage(assistant(numberedLines(14, "more").join("\n")));
		session.appendMessage(user("and now?"));
		session.appendMessage(assistant("answer"));
		const second = prepareCompaction(session.getBranch());
		if (!second) throw new Error("expected a region");
		expect(second.region.lines.slice(0, 10)).toEqual([
			"[User]: goal",
			"(filtered 10 lines)",
			"",
			"[Assistant]: plan 1",
			"(filtered 8 lines)",
			"plan 10",
			"[Assistant]: latest",
			"",
			"[User]: continue",
			"",
		]);
		expect(second.parameters.query).toBe("and now?");
		// Deleting lines 3-4 reaches both old markers: they fold in and their counts add up.
		const { result: again } = await runCompaction({
			preparation: second,
			urgency: "recoverable",
			contextWindow: 200_000,
			wholeContextTokensBefore: 400,
			requestPlanner: deleting("3,4\n12,24\n"),
		});
		expect(again.compactedText).toBe(
			[
				"[User]: goal",
				"(filtered 20 lines)",
				"plan 10",
				"[Assistant]: latest",
				"",
				"[User]: continue",
				"",
				"[Assistant]: more 1",
				"(filtered 13 lines)",
			].join("\n"),
		);
		expect(again.stats).toMatchObject({ linesBefore: 24, linesDeleted: 17, linesKept: 7, rangeCount: 2 });
	});
});
