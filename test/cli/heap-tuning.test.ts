import { getHeapSpaceStatistics } from "node:v8";
import { describe, expect, it } from "vitest";
import { capYoungGeneration, MAX_SEMI_SPACE_MB, releaseIdleMemory } from "../../src/cli/heap-tuning.js";

const MB = 1024 * 1024;

function newSpaceBytes(): number {
	return getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0;
}

/** Allocation that survives a few scavenges, the pattern that makes V8 grow its young generation. */
async function churn(rounds: number): Promise<void> {
	const kept: object[][] = [];
	for (let round = 0; round < rounds; round++) {
		const batch: object[] = [];
		for (let index = 0; index < 20_000; index++) batch.push({ index, text: `item ${index}` });
		kept.push(batch);
		if (kept.length > 3) kept.shift();
		await new Promise((resolve) => setImmediate(resolve));
	}
}

// This file changes V8 flags of its own worker process (vitest runs each file in a fork).
describe("heap tuning", () => {
	it("keeps the young generation near its cap however much survives", async () => {
		capYoungGeneration();
		await churn(300);
		// V8's default lets it reach 2 × 16 MB under this load; one doubling may slip past the cap
		// before the GC observer runs.
		expect(newSpaceBytes()).toBeLessThanOrEqual(2 * 2 * MAX_SEMI_SPACE_MB * MB);
	});

	it("collects once the heap has grown since the last release, and not again until it grows", () => {
		releaseIdleMemory();
		expect(releaseIdleMemory()).toBe(false);
		// About 48 MB of arrays held at once, then garbage.
		let held: number[][] | undefined = Array.from({ length: 48 }, (_, index) => new Array<number>(MB / 8).fill(index));
		expect(held).toHaveLength(48);
		held = undefined;
		const before = process.memoryUsage().heapUsed;
		expect(releaseIdleMemory()).toBe(true);
		expect(process.memoryUsage().heapUsed).toBeLessThan(before - 30 * MB);
		expect(releaseIdleMemory()).toBe(false);
	});
});
