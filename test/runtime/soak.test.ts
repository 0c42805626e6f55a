import { createHook } from "node:async_hooks";
import { getEventListeners } from "node:events";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ScriptedReply } from "../support/llm-server.js";
import { settle, startSession } from "./helpers.js";

const PROMPTS = 200;
/** Every this many prompts, the reply calls a tool first (read, then a text reply). */
const TOOL_EVERY = 10;

function processListeners(): number {
	return process.eventNames().reduce((sum, name) => sum + process.listenerCount(name), 0);
}

/**
 * Timers set by Atomic's code (src/) that have neither fired nor been cleared. The test runner's
 * own timers come and go with its reporting: they are left out of the count.
 */
const liveTimers = new Set<number>();
createHook({
	init(id, type) {
		if (type === "Timeout" && new Error().stack?.includes("/src/")) liveTimers.add(id);
	},
	destroy(id) {
		liveTimers.delete(id);
	},
}).enable();

/** What a session could accumulate per prompt, counted (not measured in bytes). */
function census() {
	const handles = process.getActiveResourcesInfo().filter((resource) => resource !== "Timeout");
	return { processListeners: processListeners(), handles: handles.length, timers: liveTimers.size };
}

// Memory over a long session is not a figure a test can time; what a leak would be made of can be
// counted: listeners, handles, timers, and the conversation's own size.
describe("a long session", () => {
	it(`keeps listeners, handles and signals flat over ${PROMPTS} prompts; only the conversation grows`, async () => {
		const { session, stream, tree } = startSession();
		writeFileSync(join(tree.cwd, "note.txt"), "a line\n");
		const read: ScriptedReply = { blocks: [{ type: "toolCall", name: "read", arguments: { path: "note.txt" } }] };
		const text = (count: number): ScriptedReply => ({ blocks: [{ type: "text", text: `reply ${count}` }] });
		let baseline: ReturnType<typeof census> | undefined;
		let expectedMessages = 0;
		for (let count = 1; count <= PROMPTS; count++) {
			const withTool = count % TOOL_EVERY === 0;
			if (withTool) stream.push(read, text(count));
			else stream.push(text(count));
			await session.prompt(`prompt ${count}`);
			// user, assistant; with a tool: user, assistant (call), tool result, assistant.
			expectedMessages += withTool ? 4 : 2;
			expect(session.messages).toHaveLength(expectedMessages);
			if (count === TOOL_EVERY) {
				await settle();
				baseline = census();
			}
		}
		await settle();
		expect(census()).toEqual(baseline);
		// An idle session holds no timer of its own (a heartbeat timer ends with the run).
		expect(baseline?.timers).toBe(0);
		// Each request's signal is left without listeners once its run is over.
		expect(stream.calls).toHaveLength(PROMPTS + PROMPTS / TOOL_EVERY);
		const leftOn = stream.calls.filter((call) => {
			const signal = call.options.signal;
			return signal !== undefined && getEventListeners(signal, "abort").length > 0;
		});
		expect(leftOn).toHaveLength(0);
		expect(session.getState().messageCount).toBe(expectedMessages);
	}, 120_000);
});
