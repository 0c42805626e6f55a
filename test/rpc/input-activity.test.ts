import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LineSplitter, type RecordText, readRecords } from "../../src/rpc/framing.js";
import { IdleWork } from "../../src/runtime/idle/idle-work.js";

beforeEach(() => {
	vi.useFakeTimers();
});
afterEach(() => {
	vi.useRealTimers();
});

describe("input and idle work", () => {
	it("a record still arriving is activity: no step starts until the input has been quiet", async () => {
		const ran: string[] = [];
		const preload = new IdleWork([{ name: "step", run: () => void ran.push("step") }], {
			idleMs: 100,
			isBusy: () => false,
		});
		const records: RecordText[] = [];
		const input = new PassThrough();
		readRecords(input, new LineSplitter((record) => records.push(record)), () => preload.touch());
		preload.start();
		// One record, a chunk every 60 ms for 1.2 s: never 100 ms without input, never a whole line.
		for (let chunk = 0; chunk < 20; chunk++) {
			input.write(chunk === 0 ? '{"type":"get_state","pad":"' : "x".repeat(1000));
			await vi.advanceTimersByTimeAsync(60);
		}
		expect(records).toEqual([]);
		expect(ran).toEqual([]);
		input.write('"}\n');
		await vi.advanceTimersByTimeAsync(60);
		expect(records).toHaveLength(1);
		expect(ran).toEqual([]);
		await vi.advanceTimersByTimeAsync(100);
		expect(ran).toEqual(["step"]);
	});
});
