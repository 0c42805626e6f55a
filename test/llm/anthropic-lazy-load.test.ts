import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { LlmServer } from "../support/llm-server.js";
import { testModel } from "../support/models.js";
import { userMessage } from "./anthropic-test-helpers.js";

// Counts how often the SDK module is evaluated; the factory runs on its first import only.
const sdkLoads = vi.hoisted(() => ({ count: 0 }));

vi.mock("@anthropic-ai/sdk", async (importOriginal) => {
	sdkLoads.count++;
	return importOriginal();
});

let server: LlmServer;

beforeAll(async () => {
	server = await LlmServer.start();
});

afterAll(async () => {
	await server.close();
});

describe("anthropic-messages lazy loading", () => {
	it("importing the registry does not load the SDK; the first request does", async () => {
		const { streamModel } = await import("../../src/llm/registry.js");
		await import("../../src/llm/providers/anthropic-request.js");
		expect(sdkLoads.count).toBe(0);

		const message = await streamModel(testModel(server, "anthropic-messages"), {
			messages: [userMessage("Hi")],
		}).result();
		expect(message.stopReason).toBe("stop");
		expect(sdkLoads.count).toBe(1);
	});
});
