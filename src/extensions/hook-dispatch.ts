import type { AgentToolResult, ToolCallBlock, ToolCallContext, ToolResultOverride } from "../agent/types.js";
import type { ImageContent } from "../llm/types.js";
import type { Dispatch } from "./dispatch.js";
import type { InputSource, ResourcesDiscoverEvent, ToolResultEvent, UserBashResult } from "./events.js";
import { inputDecision, isBlock, isCancel, toolResultPatch, userBashResult } from "./hook-results.js";

export interface InputRequest {
	text: string;
	images?: ImageContent[];
	/** Pass it only while streaming (extensions read its presence as "the agent is busy"). */
	streamingBehavior?: string;
	/** Default "rpc". */
	source?: InputSource;
}

export type InputOutcome = { handled: true } | { handled: false; text: string; images?: ImageContent[] };

/** `tool_call`: the first `{block: true}` wins; a throwing handler blocks (fail closed). */
export async function toolCallHook(
	dispatch: Dispatch,
	context: ToolCallContext,
	signal: AbortSignal,
): Promise<ToolCallBlock | undefined> {
	const event = {
		type: "tool_call",
		toolName: context.toolCall.name,
		toolCallId: context.toolCall.id,
		input: context.args,
	};
	for (const [record, handler] of dispatch.handlers("tool_call")) {
		const outcome = await dispatch.invoke(record, handler, event, { signal });
		if (!outcome.ok) return { block: true, reason: `Extension failed, blocking execution: ${outcome.error}` };
		if (isBlock(outcome.value)) {
			const block: ToolCallBlock = { block: true };
			if (typeof outcome.value.reason === "string") block.reason = outcome.value.reason;
			return block;
		}
	}
	return undefined;
}

/** `tool_result`: patches chain; undefined when none changed anything. */
export async function toolResultHook(
	dispatch: Dispatch,
	context: ToolCallContext & { result: AgentToolResult; isError: boolean },
	signal: AbortSignal,
): Promise<ToolResultOverride | undefined> {
	const event: ToolResultEvent = {
		type: "tool_result",
		toolName: context.toolCall.name,
		toolCallId: context.toolCall.id,
		input: context.args,
		content: context.result.content,
		details: context.result.details,
		isError: context.isError,
	};
	let changed = false;
	for (const [record, handler] of dispatch.handlers("tool_result")) {
		const outcome = await dispatch.invoke(record, handler, { ...event }, { signal });
		if (!outcome.ok) continue;
		const patch = dispatch.read(record, "tool_result", () => toolResultPatch(outcome.value));
		if (!patch) continue;
		Object.assign(event, patch);
		changed = true;
	}
	return changed ? { content: event.content, details: event.details, isError: event.isError } : undefined;
}

/** `input`: transforms chain, the first "handled" wins. */
export async function inputHook(dispatch: Dispatch, request: InputRequest): Promise<InputOutcome> {
	let text = request.text;
	let images = request.images;
	for (const [record, handler] of dispatch.handlers("input")) {
		const event = { type: "input", text, images, source: request.source ?? "rpc" };
		const delivered = request.streamingBehavior ? { ...event, streamingBehavior: request.streamingBehavior } : event;
		const outcome = await dispatch.invoke(record, handler, delivered);
		if (!outcome.ok) continue;
		const decision = dispatch.read(record, "input", () => inputDecision(outcome.value));
		if (decision?.action === "handled") return { handled: true };
		if (decision?.action === "transform") {
			text = decision.text;
			if (decision.images !== undefined) images = decision.images;
		}
	}
	return images === undefined ? { handled: false, text } : { handled: false, text, images };
}

/** `user_bash`: the first handler returning a result answers the command. */
export async function userBashHook(
	dispatch: Dispatch,
	event: { type: "user_bash"; command: string; excludeFromContext: boolean; cwd: string },
): Promise<UserBashResult | undefined> {
	for (const [record, handler] of dispatch.handlers("user_bash")) {
		const outcome = await dispatch.invoke(record, handler, event);
		if (!outcome.ok) continue;
		const result = dispatch.read(record, "user_bash", () => userBashResult(outcome.value));
		if (result) return result;
	}
	return undefined;
}

/** The `session_before_*` hooks: the first `{cancel: true}` cancels; errors count as no cancel. */
export async function cancellableHook(dispatch: Dispatch, event: { type: string }): Promise<{ cancel: boolean }> {
	for (const [record, handler] of dispatch.handlers(event.type)) {
		const outcome = await dispatch.invoke(record, handler, event);
		if (outcome.ok && isCancel(outcome.value)) return { cancel: true };
	}
	return { cancel: false };
}

function paths(value: unknown, field: string): string[] {
	if (value === undefined) return [];
	if (!Array.isArray(value) || !value.every((item) => typeof item === "string"))
		throw new TypeError(`resources_discover: \`${field}\` must be an array of paths`);
	return value;
}

/** `resources_discover`: every handler's skill and prompt template paths, in order. */
export async function resourcesHook(
	dispatch: Dispatch,
	event: ResourcesDiscoverEvent,
): Promise<{ skillPaths: string[]; promptPaths: string[] }> {
	const found: { skillPaths: string[]; promptPaths: string[] } = { skillPaths: [], promptPaths: [] };
	for (const [record, handler] of dispatch.handlers(event.type)) {
		const outcome = await dispatch.invoke(record, handler, event);
		const value = outcome.ok ? outcome.value : undefined;
		if (typeof value !== "object" || value === null) continue;
		const result = dispatch.read(record, event.type, () => ({
			skillPaths: paths("skillPaths" in value ? value.skillPaths : undefined, "skillPaths"),
			promptPaths: paths("promptPaths" in value ? value.promptPaths : undefined, "promptPaths"),
		}));
		found.skillPaths.push(...(result?.skillPaths ?? []));
		found.promptPaths.push(...(result?.promptPaths ?? []));
	}
	return found;
}
