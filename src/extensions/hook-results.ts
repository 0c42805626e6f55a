import type { ImageContent, TextContent } from "../llm/types.js";
import type { InputEventResult, ToolResultEventResult, UserBashResult } from "./events.js";

// Handlers are untyped at run time (JavaScript extensions): these read what they returned.

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null;
}

/** True for `{block: true}`. */
export function isBlock(value: unknown): value is { block: true; reason?: unknown } {
	return isRecord(value) && value.block === true;
}

/** True for `{cancel: true}`. */
export function isCancel(value: unknown): boolean {
	return isRecord(value) && value.cancel === true;
}

/** The fields of a tool_result patch; throws on fields of the wrong type. */
export function toolResultPatch(value: unknown): ToolResultEventResult | undefined {
	if (!isRecord(value)) return undefined;
	const patch: ToolResultEventResult = {};
	if (value.content !== undefined) {
		if (!Array.isArray(value.content)) throw new TypeError("tool_result: `content` must be an array of content blocks");
		patch.content = value.content as (TextContent | ImageContent)[];
	}
	if (value.details !== undefined) patch.details = value.details;
	if (value.isError !== undefined) {
		if (typeof value.isError !== "boolean") throw new TypeError("tool_result: `isError` must be a boolean");
		patch.isError = value.isError;
	}
	return patch;
}

/** An input handler's decision; undefined means "continue". Throws on an unknown shape. */
export function inputDecision(value: unknown): InputEventResult | undefined {
	if (value === undefined || value === null) return undefined;
	if (!isRecord(value)) throw new TypeError("input: a handler must return nothing or {action: ...}");
	switch (value.action) {
		case "continue":
			return undefined;
		case "handled":
			return { action: "handled" };
		case "transform": {
			if (typeof value.text !== "string") throw new TypeError("input: a transform needs a string `text`");
			if (value.images !== undefined && !Array.isArray(value.images))
				throw new TypeError("input: `images` must be an array");
			const decision: InputEventResult = { action: "transform", text: value.text };
			if (value.images !== undefined) decision.images = value.images as ImageContent[];
			return decision;
		}
		default:
			throw new TypeError(`input: unknown action ${JSON.stringify(value.action)}`);
	}
}

/**
 * A user_bash handler's result: pi's `{result: {...}}` or the result itself; undefined lets the
 * command run. Throws on `{operations}` (replacing the shell backend is not supported) and on
 * malformed results.
 */
export function userBashResult(value: unknown): UserBashResult | undefined {
	if (value === undefined || value === null) return undefined;
	if (!isRecord(value)) throw new TypeError("user_bash: a handler must return nothing or a result");
	if (value.operations !== undefined && value.result === undefined)
		throw new Error("user_bash: `operations` are not supported by Atomic; return `{result}` instead");
	const raw = isRecord(value.result) ? value.result : value;
	if (typeof raw.output !== "string") throw new TypeError("user_bash: the result needs a string `output`");
	const result: UserBashResult = {
		output: raw.output,
		cancelled: raw.cancelled === true,
		truncated: raw.truncated === true,
	};
	if (typeof raw.exitCode === "number" && !result.cancelled) result.exitCode = raw.exitCode;
	if (typeof raw.fullOutputPath === "string") result.fullOutputPath = raw.fullOutputPath;
	return result;
}
