import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { AbortTree } from "../../src/runtime/runs/abort-tree.js";

/** Node keeps the signals made by AbortSignal.any under this symbol of each source signal. */
function dependantSignals(signal: AbortSignal): number {
	const symbol = Object.getOwnPropertySymbols(signal).find((key) => key.description === "kDependantSignals");
	const value: unknown = symbol ? Reflect.get(signal, symbol) : undefined;
	return value instanceof Set ? value.size : 0;
}

describe("AbortTree", () => {
	it("leaves nothing on a long-lived parent signal once its operations have finished", () => {
		const tree = new AbortTree();
		const parent = new AbortController();
		for (let count = 0; count < 200; count++) {
			const operation = tree.start(parent.signal);
			expect(getEventListeners(parent.signal, "abort")).toHaveLength(1);
			operation.finish();
		}
		expect(getEventListeners(parent.signal, "abort")).toHaveLength(0);
		expect(dependantSignals(parent.signal)).toBe(0);
	});

	it("aborts an operation with its parent, with abortAll, or alone with cancel", async () => {
		const tree = new AbortTree();
		const parent = new AbortController();
		const underParent = tree.start(parent.signal);
		const other = tree.start();
		parent.abort(new Error("parent stopped"));
		expect(underParent.signal.aborted).toBe(true);
		expect(underParent.signal.reason).toEqual(new Error("parent stopped"));
		expect(other.signal.aborted).toBe(false);

		const cancelled = tree.start();
		cancelled.cancel();
		expect(cancelled.signal.aborted).toBe(true);
		expect(other.signal.aborted).toBe(false);

		const all = tree.abortAll();
		expect(other.signal.aborted).toBe(true);
		for (const operation of [underParent, other, cancelled]) operation.finish();
		await all;
		expect(tree.busy).toBe(false);
		// After an abort, new operations start afresh.
		expect(tree.start().signal.aborted).toBe(false);
	});

	it("starts aborted under a parent that already was", () => {
		const parent = new AbortController();
		parent.abort();
		const operation = new AbortTree().start(parent.signal);
		expect(operation.signal.aborted).toBe(true);
		operation.finish();
	});
});
