import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RetryPolicy } from "../../src/agent/retry.js";
import { registerProvider, streamModel } from "../../src/llm/registry.js";
import { MAX_TIMER_MS, timerDelay } from "../../src/llm/timer-limit.js";
import type { Model } from "../../src/llm/types.js";
import { RpcExtensionUi } from "../../src/rpc/extension-ui.js";
import { Heartbeat } from "../../src/runtime/facade/heartbeat.js";

/** Longer than any timer: Node would fire it after 1 ms. */
const MONTH_MS = 31 * 24 * 3600 * 1000;

function afterTimers(ms = 40): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

describe("timerDelay", () => {
	it("clamps to the longest delay a timer takes and never goes below zero", () => {
		expect(timerDelay(MONTH_MS)).toBe(MAX_TIMER_MS);
		expect(timerDelay(Number.POSITIVE_INFINITY)).toBe(MAX_TIMER_MS);
		expect(timerDelay(-5)).toBe(0);
		expect(timerDelay(Number.NaN, 7)).toBe(7);
		expect(timerDelay(1500)).toBe(1500);
	});
});

describe("timers fed from input wait instead of firing at once", () => {
	// Node warns each time it shortens an overflowing delay to 1 ms: none may be seen.
	const overflows: string[] = [];
	const onWarning = (warning: Error) => {
		if (warning.name === "TimeoutOverflowWarning") overflows.push(warning.message);
	};
	beforeEach(() => {
		overflows.length = 0;
		process.on("warning", onWarning);
	});
	afterEach(() => {
		process.off("warning", onWarning);
		expect(overflows).toEqual([]);
	});

	it("retry backoff from a huge base delay or many attempts", () => {
		expect(new RetryPolicy({ baseDelayMs: MONTH_MS }).delayFor(1)).toBe(MAX_TIMER_MS);
		expect(new RetryPolicy({ baseDelayMs: 2000 }).delayFor(2000)).toBe(MAX_TIMER_MS);
	});

	it("a heartbeat interval of a month sends no heartbeat at once", async () => {
		const sent: number[] = [];
		const heartbeat = new Heartbeat(
			MONTH_MS,
			() => "tool",
			(_waitingOn, idleMs) => sent.push(idleMs),
		);
		heartbeat.touch();
		await afterTimers();
		heartbeat.stop();
		expect(sent).toEqual([]);
	});

	it("an extension dialog with a timeout of a month stays open", async () => {
		const ui = new RpcExtensionUi(() => undefined);
		const answer = ui.select("Pick", ["a"], { timeout: MONTH_MS });
		await afterTimers();
		expect(ui.openDialogs).toBe(1);
		ui.cancelAll();
		expect(await answer).toBeUndefined();
	});

	it("a stream idle timeout of a month does not end a slow stream", async () => {
		registerProvider("openai-responses", async () => ({
			async streamReply(_model, _context, _options, out) {
				await afterTimers();
				out.start();
				const index = out.startText();
				out.appendText(index, "slow but fine");
				out.endBlock(index);
				out.finish("stop");
			},
		}));
		const model: Model = {
			id: "slow",
			name: "Slow",
			api: "openai-responses",
			provider: "slow",
			baseUrl: "http://127.0.0.1:9",
			reasoning: false,
			input: ["text"],
			contextWindow: 1000,
			maxTokens: 100,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		};
		const context = { messages: [{ role: "user" as const, content: "hi", timestamp: 0 }] };
		const message = await streamModel(model, context, { idleTimeoutMs: MONTH_MS }).result();
		expect({ stopReason: message.stopReason, errorMessage: message.errorMessage }).toEqual({
			stopReason: "stop",
			errorMessage: undefined,
		});
	});
});
