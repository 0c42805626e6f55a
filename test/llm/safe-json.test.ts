import { describe, expect, it } from "vitest";
import { safeStringify } from "../../src/llm/safe-json.js";
import { serializeRecord } from "../../src/rpc/framing.js";

describe("safeStringify", () => {
	it("replaces circular references, bigints and parts nested too deeply, and keeps the rest", () => {
		const value: Record<string, unknown> = { n: 5n, text: "kept", list: [1, 2] };
		value.self = value;
		let deep: unknown = "bottom";
		for (let level = 0; level < 200_000; level++) deep = [deep];
		value.deep = deep;
		const parsed = JSON.parse(safeStringify(value));
		expect(parsed).toMatchObject({ n: "5", text: "kept", list: [1, 2], self: "[circular reference]" });
		expect(JSON.stringify(parsed.deep)).toContain("[nested more than 64 levels deep]");
	});

	it("keeps a value that is shared but not circular", () => {
		const shared = { a: 1 };
		expect(JSON.parse(safeStringify({ x: shared, y: shared, n: 1n }))).toEqual({ x: { a: 1 }, y: { a: 1 }, n: "1" });
	});

	it("is what an output record falls back to, so writing one never throws", () => {
		const record: Record<string, unknown> = { type: "tool_execution_end", count: 1n };
		record.loop = record;
		expect(JSON.parse(serializeRecord(record))).toEqual({
			type: "tool_execution_end",
			count: "1",
			loop: "[circular reference]",
		});
	});
});
