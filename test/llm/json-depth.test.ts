import { describe, expect, it } from "vitest";
import { MAX_ARGUMENT_DEPTH, nestedDeeperThan } from "../../src/llm/json-depth.js";
import { AssistantStreamBuilder, parseToolArguments } from "../../src/llm/stream-builder.js";
import type { Model } from "../../src/llm/types.js";

function nestedArrays(depth: number): unknown {
	let value: unknown = 1;
	for (let level = 0; level < depth; level++) value = [value];
	return value;
}

const model: Model = {
	id: "m",
	name: "M",
	api: "google-generative-ai",
	provider: "p",
	baseUrl: "http://127.0.0.1:9",
	reasoning: false,
	input: ["text"],
	contextWindow: 1000,
	maxTokens: 100,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
};

describe("argument nesting", () => {
	it("measures depth without recursion, however deep", () => {
		expect(nestedDeeperThan({ a: [1] }, 2)).toBe(false);
		expect(nestedDeeperThan({ a: [[1]] }, 2)).toBe(true);
		expect(nestedDeeperThan(nestedArrays(1_000_000), MAX_ARGUMENT_DEPTH)).toBe(true);
		expect(nestedDeeperThan("text", 0)).toBe(false);
	});

	it("streamed arguments nested too deeply become a parse error the model is told", () => {
		const depth = 200_000;
		const json = `{"v":${"[".repeat(depth)}1${"]".repeat(depth)}}`;
		expect(parseToolArguments(json)).toEqual({
			__raw: json,
			__parseError: "the arguments are nested more than 100 levels deep",
		});
		const shallow = `{"v":${"[".repeat(99)}1${"]".repeat(99)}}`;
		expect(parseToolArguments(shallow)).toEqual(JSON.parse(shallow));
	});

	it("whole arguments a provider delivers too deeply nested are never serialised", () => {
		const builder = new AssistantStreamBuilder(model);
		const index = builder.startToolCall("call-1", "ls");
		builder.setToolArguments(index, { v: nestedArrays(100_000) });
		builder.finish("toolUse");
		expect(builder.message.content[0]).toMatchObject({
			type: "toolCall",
			arguments: { __raw: "", __parseError: "the arguments are nested more than 100 levels deep" },
		});
		expect(() => JSON.stringify(builder.message)).not.toThrow();
	});
});
