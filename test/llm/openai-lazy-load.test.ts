import { describe, expect, it, vi } from "vitest";
import { testModel } from "../support/models.js";
import { hello, useLlmServer } from "./openai-test-helpers.js";

const API = "openai-completions";
const ctx = useLlmServer();

describe("openai lazy loading", () => {
	it("importing the registry does not load the openai SDK; streaming does", async () => {
		let loads = 0;
		vi.resetModules();
		vi.doMock("openai", async (importOriginal) => {
			loads++;
			return importOriginal();
		});
		try {
			const registry = await import("../../src/llm/registry.js");
			await import("../../src/llm/providers/openai-completions-request.js");
			await import("../../src/llm/providers/openai-responses-request.js");
			expect(loads).toBe(0);
			const message = await registry.streamModel(testModel(ctx.server, API), hello).result();
			expect(message.stopReason).toBe("stop");
			expect(loads).toBe(1);
		} finally {
			vi.doUnmock("openai");
			vi.resetModules();
		}
	});
});
