import type { CostBreakdown, Model, Usage } from "./types.js";

const PER_MILLION = 1_000_000;

/** Cost of a usage record at the model's prices (USD per million tokens). */
export function calculateCost(model: Pick<Model, "cost">, usage: Omit<Usage, "cost" | "totalTokens">): CostBreakdown {
	const input = (usage.input * model.cost.input) / PER_MILLION;
	const output = (usage.output * model.cost.output) / PER_MILLION;
	const cacheRead = (usage.cacheRead * model.cost.cacheRead) / PER_MILLION;
	const cacheWrite = (usage.cacheWrite * model.cost.cacheWrite) / PER_MILLION;
	return { input, output, cacheRead, cacheWrite, total: input + output + cacheRead + cacheWrite };
}

export function emptyUsage(): Usage {
	return {
		input: 0,
		output: 0,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: 0,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
	};
}
