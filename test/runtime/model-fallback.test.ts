import { describe, expect, it } from "vitest";
import { emptyUsage } from "../../src/llm/cost.js";
import type { ProviderErrorKind } from "../../src/llm/errors.js";
import type { AssistantMessage, Model } from "../../src/llm/types.js";
import type { AgentSessionEvent } from "../../src/runtime/facade/events.js";
import { ModelFallback, matchesPattern } from "../../src/runtime/models/model-fallback.js";

describe("fallback patterns", () => {
	const model = { provider: "openrouter", id: "anthropic/claude-sonnet-4.5" };

	it("match provider/id exactly, a bare id, or either with * for any run of characters", () => {
		expect(matchesPattern(model, "openrouter/anthropic/claude-sonnet-4.5")).toBe(true);
		expect(matchesPattern(model, "anthropic/claude-sonnet-4.5")).toBe(false);
		expect(matchesPattern({ provider: "anthropic", id: "claude-sonnet-4.5" }, "claude-sonnet-4.5")).toBe(true);
		expect(matchesPattern(model, "openrouter/*")).toBe(true);
		expect(matchesPattern(model, "*/anthropic/claude-*")).toBe(true);
		expect(matchesPattern(model, "openai/*")).toBe(false);
	});

	it("treat regular-expression characters literally", () => {
		expect(matchesPattern({ provider: "p", id: "a.b" }, "p/a.b")).toBe(true);
		expect(matchesPattern({ provider: "p", id: "axb" }, "p/a.b")).toBe(false);
		expect(matchesPattern({ provider: "p", id: "axb" }, "p/a.*")).toBe(false);
		expect(matchesPattern({ provider: "p", id: "a(1)" }, "p/a(*)")).toBe(true);
	});
});

function model(provider: string, id: string, contextWindow: number): Model {
	return {
		id,
		name: id,
		api: "openai-completions",
		provider,
		baseUrl: "http://127.0.0.1:1",
		reasoning: false,
		input: ["text"],
		contextWindow,
		maxTokens: 4096,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
	};
}

function failed(kind: ProviderErrorKind): AssistantMessage {
	return {
		role: "assistant",
		content: [],
		api: "openai-completions",
		provider: "p",
		model: "m",
		usage: emptyUsage(),
		stopReason: "error",
		errorMessage: kind,
		error: { kind, retryable: false },
		timestamp: 0,
	};
}

/** A fallback over `available` models (the authenticated ones), starting on `current`. */
function fallback(options: { current: Model; available: Model[]; tiers: string[]; contextTokens?: number | null }) {
	let current = options.current;
	const events: AgentSessionEvent[] = [];
	const subject = new ModelFallback({
		models: {
			get model() {
				return current;
			},
			available: () => options.available,
			fallBackTo: (next) => {
				current = next;
				return undefined;
			},
		},
		tiers: () => options.tiers,
		contextTokens: () => options.contextTokens ?? null,
		events: { emit: (event) => events.push(event) },
	});
	return { subject, events, current: () => current };
}

describe("model fallback tiers", () => {
	const primary = model("a", "primary", 100_000);
	const small = model("b", "small", 8_000);
	const big = model("c", "big", 400_000);

	it("falls back on overload, server errors, rate limits, timeouts, network and quota failures", () => {
		for (const kind of ["overloaded", "server_error", "rate_limit", "timeout", "network", "quota"] as const) {
			const { subject, current } = fallback({ current: primary, available: [primary, big], tiers: ["c/big"] });
			expect(subject.afterRun(failed(kind), false)).toBe(true);
			expect(current()).toBe(big);
		}
	});

	it("never falls back on a request, authentication, content filter or unknown error, nor after a reply", () => {
		for (const kind of ["invalid_request", "auth", "content_filter", "invalid_response", "unknown"] as const) {
			const { subject, events, current } = fallback({ current: primary, available: [primary, big], tiers: ["c/big"] });
			expect(subject.afterRun(failed(kind), false)).toBe(false);
			expect(current()).toBe(primary);
			expect(events).toEqual([]);
		}
		const { subject } = fallback({ current: primary, available: [primary, big], tiers: ["c/big"] });
		expect(subject.afterRun({ ...failed("overloaded"), stopReason: "stop" }, false)).toBe(false);
		expect(subject.afterRun(undefined, false)).toBe(false);
	});

	it("skips tiers without credentials and tiers whose window cannot hold the context", () => {
		const { subject, events, current } = fallback({
			current: primary,
			// `nokey` has no key: it is not among the available models.
			available: [primary, small, big],
			tiers: ["d/nokey", "b/small", "c/big"],
			contextTokens: 20_000,
		});
		expect(subject.afterRun(failed("overloaded"), false)).toBe(true);
		expect(current()).toBe(big);
		expect(events).toEqual([{ type: "model_fallback", from: "a/primary", to: "c/big", reason: "overloaded" }]);
	});

	it("on an overflow compaction could not resolve, takes only a larger window; none left: no fallback", () => {
		const same = model("e", "same", 100_000);
		const { subject, current } = fallback({ current: primary, available: [primary, same, big], tiers: ["e/*", "c/*"] });
		expect(subject.afterRun(undefined, true)).toBe(true);
		expect(current()).toBe(big);
		expect(subject.afterRun(undefined, true)).toBe(false);
	});

	it("goes on from the current model's place in the tiers, never back to an earlier tier", () => {
		const { subject, current } = fallback({
			current: big,
			available: [primary, big, small],
			tiers: ["a/primary", "c/big", "b/small"],
		});
		expect(subject.afterRun(failed("overloaded"), false)).toBe(true);
		expect(current()).toBe(small);
		expect(subject.afterRun(failed("overloaded"), false)).toBe(false);
	});

	it("does nothing without tiers", () => {
		const { subject } = fallback({ current: primary, available: [primary, big], tiers: [] });
		expect(subject.afterRun(failed("overloaded"), true)).toBe(false);
	});
});
