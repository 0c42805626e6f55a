import { type Model, THINKING_LEVELS, type ThinkingLevel } from "./types.js";

/** Default token budgets for budget-based providers (Anthropic non-adaptive, Gemini 2.5 fallback). */
export const DEFAULT_THINKING_BUDGETS: Record<Exclude<ThinkingLevel, "off">, number> = {
	minimal: 1024,
	low: 2048,
	medium: 8192,
	high: 16384,
	xhigh: 16384,
	max: 16384,
};

export function isThinkingLevel(value: unknown): value is ThinkingLevel {
	return typeof value === "string" && (THINKING_LEVELS as readonly string[]).includes(value);
}

/**
 * The levels a model supports, in cycle order. Non-reasoning models support only "off"; `xhigh`
 * and `max` need an explicit entry in the model's thinkingLevelMap; a `null` entry hides a level.
 */
export function supportedThinkingLevels(
	model: Pick<Model, "reasoning" | "thinkingLevelMap"> | undefined,
): ThinkingLevel[] {
	if (!model?.reasoning) return ["off"];
	const map = model.thinkingLevelMap ?? {};
	return THINKING_LEVELS.filter((level) => {
		const mapped = map[level];
		if (mapped === null) return false;
		if (level === "xhigh" || level === "max") return typeof mapped === "string";
		return true;
	});
}

/**
 * Clamps a requested level to what the model supports: an unsupported level moves to the nearest
 * supported level above it, else the nearest below; an unknown value becomes the first supported.
 */
export function clampThinkingLevel(
	model: Pick<Model, "reasoning" | "thinkingLevelMap"> | undefined,
	level: string,
): ThinkingLevel {
	const supported = supportedThinkingLevels(model);
	if (!isThinkingLevel(level)) return supported[0] ?? "off";
	if (supported.includes(level)) return level;
	const wanted = THINKING_LEVELS.indexOf(level);
	const above = supported.find((candidate) => THINKING_LEVELS.indexOf(candidate) > wanted);
	if (above) return above;
	const below = [...supported].reverse().find((candidate) => THINKING_LEVELS.indexOf(candidate) < wanted);
	return below ?? supported[0] ?? "off";
}

/** The value to send for a level: the model's mapping when it has one, else the level itself. */
export function mappedThinkingValue(model: Pick<Model, "thinkingLevelMap">, level: ThinkingLevel): string {
	const mapped = model.thinkingLevelMap?.[level];
	return typeof mapped === "string" ? mapped : level;
}

/** Budget tokens for a level, honouring caller overrides. */
export function thinkingBudget(
	level: Exclude<ThinkingLevel, "off">,
	overrides?: Partial<Record<ThinkingLevel, number>>,
): number {
	return overrides?.[level] ?? DEFAULT_THINKING_BUDGETS[level];
}
