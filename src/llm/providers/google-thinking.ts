import type { ThinkingLevel as GeminiThinkingLevel, ThinkingConfig } from "@google/genai";
import { thinkingBudget } from "../thinking.js";
import type { Model, StreamOptions, ThinkingLevel } from "../types.js";

type ActiveLevel = Exclude<ThinkingLevel, "off">;
type BudgetTable = Record<"minimal" | "low" | "medium" | "high", number>;
type GeminiLevelName = `${GeminiThinkingLevel}`;

/** Budgets per level of the Gemini 2.5 models; checked in order, so flash-lite comes before flash. */
const BUDGETS_BY_MODEL: [pattern: string, budgets: BudgetTable][] = [
	["gemini-2.5-pro", { minimal: 128, low: 2048, medium: 8192, high: 32768 }],
	["gemini-2.5-flash-lite", { minimal: 512, low: 2048, medium: 8192, high: 24576 }],
	["gemini-2.5-flash", { minimal: 128, low: 2048, medium: 8192, high: 24576 }],
];

/** 2.5 Pro cannot turn thinking off; its smallest budget is the closest thing. */
const PRO_MINIMUM_BUDGET = 128;

const PRO_LEVELS: Record<ActiveLevel, GeminiLevelName> = {
	minimal: "LOW",
	low: "LOW",
	medium: "HIGH",
	high: "HIGH",
	xhigh: "HIGH",
	max: "HIGH",
};

const FLASH_LEVELS: Record<ActiveLevel, GeminiLevelName> = {
	minimal: "MINIMAL",
	low: "LOW",
	medium: "MEDIUM",
	high: "HIGH",
	xhigh: "HIGH",
	max: "HIGH",
};

const GEMINI_LEVEL_NAMES: readonly string[] = ["MINIMAL", "LOW", "MEDIUM", "HIGH", "XHIGH"];

/**
 * The thinkingConfig for a request, or undefined for models that do not reason. Gemini 3 takes a
 * thinking level and cannot switch thinking off (off becomes its lowest level, without thoughts);
 * Gemini 2.5 and unknown models take a token budget, 0 meaning off.
 */
export function googleThinkingConfig(
	model: Model,
	options: Pick<StreamOptions, "reasoning" | "thinkingBudgets">,
): ThinkingConfig | undefined {
	if (!model.reasoning) return undefined;
	const level = options.reasoning ?? "off";
	if (isGemini3(model)) return levelConfig(model, level);
	return budgetConfig(model, level, options.thinkingBudgets);
}

/** Gemini 3 and later take a thinking level instead of a token budget. */
export function isGemini3(model: Pick<Model, "id">): boolean {
	const major = /gemini-(\d+)/.exec(model.id.toLowerCase())?.[1];
	return major !== undefined && Number(major) >= 3;
}

function levelConfig(model: Model, level: ThinkingLevel): ThinkingConfig {
	const pro = model.id.toLowerCase().includes("pro");
	const table = pro ? PRO_LEVELS : FLASH_LEVELS;
	if (level === "off") return { thinkingLevel: geminiLevel(pro ? "LOW" : "MINIMAL") };
	const mapped = model.thinkingLevelMap?.[level]?.toUpperCase();
	const name = mapped && GEMINI_LEVEL_NAMES.includes(mapped) ? (mapped as GeminiLevelName) : table[level];
	return { includeThoughts: true, thinkingLevel: geminiLevel(name) };
}

function budgetConfig(model: Model, level: ThinkingLevel, overrides: StreamOptions["thinkingBudgets"]): ThinkingConfig {
	const id = model.id.toLowerCase();
	const known = BUDGETS_BY_MODEL.find(([pattern]) => id.includes(pattern));
	if (level === "off") return { thinkingBudget: known?.[0] === "gemini-2.5-pro" ? PRO_MINIMUM_BUDGET : 0 };
	if (!known) return { includeThoughts: true, thinkingBudget: thinkingBudget(level, overrides) };
	const budgets = known[1];
	const tableLevel = level === "xhigh" || level === "max" ? "high" : level;
	return { includeThoughts: true, thinkingBudget: overrides?.[level] ?? budgets[tableLevel] };
}

/**
 * The SDK's ThinkingLevel is a string enum whose values are the wire strings. Importing the enum
 * itself would load the SDK into this pure module, so the name is narrowed to the enum type here.
 */
function geminiLevel(name: GeminiLevelName): GeminiThinkingLevel {
	return name as GeminiThinkingLevel;
}
