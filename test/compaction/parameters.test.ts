import { describe, expect, it } from "vitest";
import { detectCompactionQuery, normaliseCompactionParameters } from "../../src/compaction/parameters.js";
import { inMemorySession } from "../../src/session/open.js";
import { assistant, toolResult, user } from "../session/helpers.js";

describe("normaliseCompactionParameters", () => {
	it("uses the defaults when nothing is given", () => {
		expect(normaliseCompactionParameters()).toEqual({
			compression_ratio: 0.5,
			preserve_recent: 2,
			query: "the latest user request",
		});
	});

	it("accepts a ratio only when finite and strictly between 0 and 1", () => {
		const ratio = (value: unknown) =>
			normaliseCompactionParameters({ options: { compression_ratio: value } }).compression_ratio;
		expect(ratio(0.25)).toBe(0.25);
		expect(ratio(0.999)).toBe(0.999);
		for (const bad of [0, 1, -0.5, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "0.3", null])
			expect(ratio(bad)).toBe(0.5);
	});

	it("floors preserve_recent and clamps it at zero", () => {
		const recent = (value: unknown) =>
			normaliseCompactionParameters({ options: { preserve_recent: value } }).preserve_recent;
		expect(recent(3.9)).toBe(3);
		expect(recent(0)).toBe(0);
		expect(recent(-4)).toBe(0);
		expect(recent(Number.NaN)).toBe(2);
		expect(recent(Number.NEGATIVE_INFINITY)).toBe(2);
		expect(recent("5")).toBe(2);
	});

	it("prefers call options, then settings, then the detected query, then the default", () => {
		const settings = { compression_ratio: 0.3, preserve_recent: 4, query: "from settings" };
		expect(
			normaliseCompactionParameters({
				options: { compression_ratio: 0.7, preserve_recent: 1, query: "from the call" },
				settings,
				detectedQuery: "detected",
			}),
		).toEqual({ compression_ratio: 0.7, preserve_recent: 1, query: "from the call" });
		expect(
			normaliseCompactionParameters({ options: { compression_ratio: 2, query: "  " }, settings, detectedQuery: "d" }),
		).toEqual({ compression_ratio: 0.3, preserve_recent: 4, query: "from settings" });
		expect(normaliseCompactionParameters({ settings: {}, detectedQuery: "detected" }).query).toBe("detected");
	});

	it("never truncates the query", () => {
		const long = "q".repeat(10_000);
		expect(normaliseCompactionParameters({ options: { query: long } }).query).toBe(long);
	});
});

describe("detectCompactionQuery", () => {
	it("takes the newest message that reaches the model as a user turn", () => {
		const session = inMemorySession({ cwd: "/work" });
		expect(detectCompactionQuery(session.getBranch())).toBeUndefined();
		session.appendMessage(user("first ask"));
		session.appendMessage(assistant("reply"));
		expect(detectCompactionQuery(session.getBranch())).toBe("first ask");

		session.appendCustomMessage({
			customType: "note",
			content: [
				{ type: "text", text: "a " },
				{ type: "text", text: "note" },
			],
			display: true,
		});
		session.appendMessage(toolResult("c1", "tool output is not a user turn"));
		expect(detectCompactionQuery(session.getBranch())).toBe("a note");

		session.appendCustomMessage({
			customType: "hidden",
			content: "excluded",
			display: false,
			excludeFromContext: true,
		});
		session.appendMessage({
			role: "user",
			content: [{ type: "image", data: "AAAA", mimeType: "image/png" }],
			timestamp: 1,
		});
		expect(detectCompactionQuery(session.getBranch())).toBe("a note");

		session.appendMessage({
			role: "bashExecution",
			command: "ls",
			output: "",
			exitCode: 0,
			cancelled: false,
			truncated: false,
			timestamp: 1,
		});
		expect(detectCompactionQuery(session.getBranch())).toBe("Ran `ls`\n(no output)");
	});
});
