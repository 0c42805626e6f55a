import { describe, expect, it } from "vitest";
import { withoutModelSecrets } from "../../src/export/html-text.js";
import { publicModel, redactUrl, redactUrlSecrets } from "../../src/llm/model-redaction.js";
import { AssistantStreamBuilder } from "../../src/llm/stream-builder.js";
import type { Model } from "../../src/llm/types.js";

const model: Model = {
	id: "m",
	name: "M",
	api: "openai-completions",
	provider: "proxy",
	baseUrl: "https://agent:pa%24%24word@proxy.example/v1?api-key=qk-123&region=eu",
	headers: { authorization: "Bearer header-secret" },
	reasoning: false,
	input: ["text"],
	contextWindow: 1000,
	maxTokens: 100,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
};

describe("redacting credentials of base URLs", () => {
	it("replaces the user name, the password and secret-looking query values", () => {
		expect(redactUrl(model.baseUrl)).toBe("https://***:***@proxy.example/v1?api-key=***&region=eu");
		expect(redactUrl("https://TOKEN@host.example")).toBe("https://***@host.example/");
		expect(redactUrl("https://generativelanguage.example/v1?key=AIza")).toBe(
			"https://generativelanguage.example/v1?key=***",
		);
		expect(redactUrl("http://localhost:11434/v1")).toBe("http://localhost:11434/v1");
		expect(redactUrl("not a url://user:pw@x")).toBe("not a url://user:pw@x");
		expect(redactUrl("weird://user:pw@x y")).toBe("weird://***@x y");
	});

	it("publicModel drops headers and redacts the base URL", () => {
		const shown = publicModel(model);
		expect(shown).not.toHaveProperty("headers");
		expect(shown.baseUrl).toBe("https://***:***@proxy.example/v1?api-key=***&region=eu");
		expect(model.baseUrl).toContain("pa%24%24word");
	});

	it("takes the credentials out of error texts, as written and decoded", () => {
		const text =
			"Request cannot be constructed from a URL that includes credentials: https://agent:pa%24%24word@proxy.example/v1 (pa$$word, qk-123)";
		expect(redactUrlSecrets(text, model.baseUrl)).toBe(
			"Request cannot be constructed from a URL that includes credentials: https://***:***@proxy.example/v1 (***, ***)",
		);
	});

	it("a failed reply's error message never carries them", () => {
		const builder = new AssistantStreamBuilder(model);
		builder.fail(`fetch failed for ${model.baseUrl}`, false);
		expect(builder.message.errorMessage).toBe(
			"fetch failed for https://***:***@proxy.example/v1?api-key=***&region=eu",
		);
	});

	it("the HTML export's JSON redacts model-like objects too", () => {
		const text = JSON.stringify({ details: { model } }, withoutModelSecrets);
		expect(text).not.toContain("pa%24%24word");
		expect(text).not.toContain("header-secret");
		expect(text).toContain("https://***:***@proxy.example/v1?api-key=***&region=eu");
	});
});
