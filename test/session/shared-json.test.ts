import { afterEach, describe, expect, it } from "vitest";
import { serializeRecord, serializeRecordParts } from "../../src/rpc/framing.js";
import { forgetSharedJson, LARGE_MESSAGE_CHARS, stringifySharing } from "../../src/session/shared-json.js";

const big = "x".repeat(LARGE_MESSAGE_CHARS);

function userMessage(text: string) {
	return { role: "user", content: [{ type: "text", text }], timestamp: 1 };
}

afterEach(() => forgetSharedJson());

describe("stringifySharing", () => {
	it("leaves records without a large message to JSON.stringify", () => {
		expect(stringifySharing({ type: "message_end", message: userMessage("hi") }, true)).toBeUndefined();
		expect(stringifySharing([userMessage(big)], true)).toBeUndefined();
	});

	it("writes exactly JSON.stringify's text, with the large messages as their own parts", () => {
		const prompt = userMessage(`${big} "quoted" \\ \n é 😀`);
		const reply = { role: "assistant", content: [{ type: "text", text: "ok" }], usage: { input: 1 }, timestamp: 2 };
		const records = [
			{ type: "message_start", message: prompt },
			{ type: "message_end", message: prompt, skipped: undefined, dropped: () => 1 },
			{ type: "turn_end", message: reply, toolResults: [userMessage(big), undefined] },
			{ type: "agent_end", messages: [prompt, reply], nested: { deep: [1, null, "a"] } },
			{ type: "message", id: "e1", parentId: null, timestamp: "2026-01-01T00:00:00Z", message: prompt },
		];
		for (const record of records) {
			const parts = stringifySharing(record, true);
			expect(parts?.join("")).toBe(JSON.stringify(record));
			expect(parts?.some((part) => part.length >= LARGE_MESSAGE_CHARS)).toBe(true);
		}
	});

	it("serialises a kept message once for every record that carries it", () => {
		let serialised = 0;
		// JSON.stringify reads the getter once per pass over the message.
		const prompt = {
			role: "user",
			content: [{ type: "text", text: big }],
			get timestamp() {
				serialised++;
				return 1;
			},
		};
		const records = [
			{ type: "message_start", message: prompt },
			{ type: "message_end", message: prompt },
			{ type: "agent_end", messages: [prompt] },
		];
		const lines = records.map((record) => stringifySharing(record, true)?.join(""));
		expect(serialised).toBe(1);
		expect(lines).toEqual(records.map((record) => JSON.stringify(record)));
		forgetSharedJson();
		stringifySharing(records[0], true);
		expect(serialised).toBe(2 + records.length);
	});

	it("serialises a kept message again once it has grown, and after forgetting", () => {
		const reply = { role: "assistant", content: [{ type: "text", text: big }] };
		const before = stringifySharing({ type: "message_start", message: reply }, true);
		reply.content[0] = { type: "text", text: `${big}more` };
		const after = stringifySharing({ type: "message_end", message: reply }, true);
		expect(after?.join("")).toBe(JSON.stringify({ type: "message_end", message: reply }));
		expect(after?.[1]).not.toBe(before?.[1]);
	});

	it("keeps nothing when asked only to peek, and uses what was kept", () => {
		let serialised = 0;
		const prompt = {
			role: "user",
			content: [{ type: "text", text: big }],
			get timestamp() {
				serialised++;
				return 1;
			},
		};
		const entry = { type: "message", id: "e1", message: prompt };
		stringifySharing(entry, false);
		stringifySharing(entry, false);
		expect(serialised).toBe(2);
		stringifySharing({ type: "message_start", message: prompt }, true);
		expect(stringifySharing(entry, false)?.join("")).toBe(JSON.stringify(entry));
		// JSON.stringify(entry) just above is the fourth pass.
		expect(serialised).toBe(4);
	});
});

describe("serializeRecordParts", () => {
	it("joins to serializeRecord's line, separators escaped in every part", () => {
		const prompt = userMessage(`${big}\u2028line\u2029`);
		for (const record of [
			{ type: "message_start", message: prompt, note: "a\u2028b" },
			{ type: "message_update", delta: "small" },
		]) {
			const parts = serializeRecordParts(record);
			expect(parts.join("")).toBe(serializeRecord(record));
			expect(parts.join("")).not.toMatch(/[\u2028\u2029]/);
		}
	});
});
