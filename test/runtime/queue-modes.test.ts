/**
 * The queue modes: steering delivered one message per turn or all at once, follow-ups one per
 * run continuation or all at once, as the model sees them.
 */
import { describe, expect, it } from "vitest";
import { textReply } from "../support/llm-server.js";
import { sentLines, startSession } from "./helpers.js";

describe("queue modes", () => {
	it.each([
		[
			"one-at-a-time",
			[
				["user: p", "user: s1"],
				["user: p", "user: s1", "assistant: r1", "user: s2"],
			],
		],
		["all", [["user: p", "user: s1", "user: s2"]]],
	] as const)("delivers steering %s", async (mode, expected) => {
		const { session, stream } = startSession({ steps: [textReply("r1"), textReply("r2")] });
		session.setSteeringMode(mode);
		await session.steer("s1");
		await session.steer("s2");
		await session.prompt("p");
		expect(stream.calls.map((call) => sentLines(call))).toEqual(expected);
	});

	it.each([
		["one-at-a-time", 3, ["user: p", "assistant: r1", "user: f1", "assistant: r2", "user: f2"]],
		["all", 2, ["user: p", "assistant: r1", "user: f1", "user: f2"]],
	] as const)("delivers follow-ups %s", async (mode, calls, last) => {
		const { session, stream, of } = startSession({ steps: [textReply("r1"), textReply("r2"), textReply("r3")] });
		session.setFollowUpMode(mode);
		await session.followUp("f1");
		await session.followUp("f2");
		await session.prompt("p");
		expect(stream.calls).toHaveLength(calls);
		expect(sentLines(stream.calls.at(-1))).toEqual(last);
		expect(of("agent_end")).toHaveLength(1);
	});
});
