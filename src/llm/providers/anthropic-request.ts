import type {
	Tool as AnthropicTool,
	MessageCreateParamsStreaming,
	OutputConfig,
	ThinkingConfigParam,
} from "@anthropic-ai/sdk/resources/messages";
import { thinkingBudget } from "../thinking.js";
import { prepareMessages } from "../transform.js";
import type { Context, Model, StreamOptions, ThinkingLevel, Tool } from "../types.js";
import { convertMessages, normalizeAnthropicToolCallId } from "./anthropic-convert.js";

/** The streaming request body. `temperature` is an API field this SDK version's types leave out. */
export type AnthropicRequest = MessageCreateParamsStreaming & { temperature?: number };

export type AnthropicEffort = NonNullable<OutputConfig["effort"]>;

const EFFORTS: readonly string[] = ["low", "medium", "high", "xhigh", "max"] satisfies AnthropicEffort[];

/** Output tokens always left for the answer itself when a thinking budget shares max_tokens. */
export const MIN_ANSWER_TOKENS = 1024;
/** The API rejects budgets below this. */
export const MIN_THINKING_BUDGET = 1024;

const DEFAULT_EFFORT: Record<Exclude<ThinkingLevel, "off">, AnthropicEffort> = {
	minimal: "low",
	low: "low",
	medium: "medium",
	high: "high",
	xhigh: "high",
	max: "high",
};

interface ThinkingPlan {
	maxTokens: number;
	thinking?: ThinkingConfigParam;
	effort?: AnthropicEffort;
}

/** Builds the Messages API request for one reply. Pure: no SDK, no network. */
export function buildAnthropicRequest(model: Model, context: Context, options: StreamOptions): AnthropicRequest {
	const prepared = prepareMessages(context.messages, model, { normalizeToolCallId: normalizeAnthropicToolCallId });
	const plan = planThinking(model, options);
	const request: AnthropicRequest = {
		model: model.id,
		max_tokens: plan.maxTokens,
		messages: convertMessages(prepared, { cache: options.cacheRetention !== "none" }),
		stream: true,
	};
	if (context.systemPrompt?.trim()) {
		request.system =
			options.cacheRetention === "none"
				? [{ type: "text", text: context.systemPrompt }]
				: [{ type: "text", text: context.systemPrompt, cache_control: { type: "ephemeral" } }];
	}
	if (context.tools && context.tools.length > 0) request.tools = context.tools.map(convertTool);
	if (plan.thinking) request.thinking = plan.thinking;
	if (plan.effort) request.output_config = { effort: plan.effort };
	const thinkingOn = plan.thinking !== undefined && plan.thinking.type !== "disabled";
	// The API accepts a temperature only without thinking.
	if (options.temperature !== undefined && !thinkingOn) request.temperature = options.temperature;
	return request;
}

function convertTool(tool: Tool): AnthropicTool {
	// A TypeBox schema is plain JSON Schema (its markers are not enumerable), so it serialises as is.
	return {
		name: tool.name,
		description: tool.description,
		input_schema: tool.parameters as AnthropicTool.InputSchema,
	};
}

/**
 * Thinking parameters and max_tokens for the requested level:
 * - non-reasoning model: no thinking parameter;
 * - reasoning model at "off" (or no level): `{type:"disabled"}`, unless the model marks "off" unsupported;
 * - `compat.forceAdaptiveThinking`: adaptive thinking with an `output_config.effort`;
 * - otherwise a token budget. A caller cap is raised by the budget (never above model.maxTokens), and
 *   the budget shrinks so that MIN_ANSWER_TOKENS remain for the answer.
 */
function planThinking(model: Model, options: StreamOptions): ThinkingPlan {
	const cap = options.maxTokens;
	const baseMaxTokens = cap === undefined ? model.maxTokens : Math.min(cap, model.maxTokens);
	const level = options.reasoning;
	if (!model.reasoning) return { maxTokens: baseMaxTokens };
	const disabled: ThinkingPlan =
		model.thinkingLevelMap?.off === null
			? { maxTokens: baseMaxTokens }
			: { maxTokens: baseMaxTokens, thinking: { type: "disabled" } };
	if (level === undefined || level === "off") return disabled;

	if (model.compat?.forceAdaptiveThinking) {
		return {
			maxTokens: baseMaxTokens,
			thinking: { type: "adaptive", display: "summarized" },
			effort: adaptiveEffort(model, level),
		};
	}

	const wanted = thinkingBudget(level, options.thinkingBudgets);
	const maxTokens = cap === undefined ? model.maxTokens : Math.min(cap + wanted, model.maxTokens);
	const budget = Math.min(wanted, maxTokens - MIN_ANSWER_TOKENS);
	// No room for the smallest budget next to an answer: reply without thinking rather than fail.
	if (budget < MIN_THINKING_BUDGET) return disabled;
	return { maxTokens, thinking: { type: "enabled", budget_tokens: budget } };
}

/** The model's own mapping wins when it names an effort the API knows; else the level's default. */
export function adaptiveEffort(
	model: Pick<Model, "thinkingLevelMap">,
	level: Exclude<ThinkingLevel, "off">,
): AnthropicEffort {
	const mapped = model.thinkingLevelMap?.[level];
	return typeof mapped === "string" && isEffort(mapped) ? mapped : DEFAULT_EFFORT[level];
}

function isEffort(value: string): value is AnthropicEffort {
	return EFFORTS.includes(value);
}
