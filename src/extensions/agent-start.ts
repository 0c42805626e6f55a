import type { AgentMessage, CustomMessage } from "../agent/messages.js";
import type { ImageContent, TextContent } from "../llm/types.js";
import type { SystemPromptOptions } from "./context-types.js";
import type { Dispatch } from "./dispatch.js";

/** What started a run: a user prompt, or an extension's custom message sent with `triggerTurn`. */
export type AgentStartTrigger =
	| { messageType: "user"; prompt: string; images?: ImageContent[] }
	| { messageType: "custom"; message: CustomMessage };

export interface AgentStartOutcome {
	/** Messages handlers added: they join the run after its starting messages. */
	messages: CustomMessage[];
	/** Set when a handler replaced the system prompt for this run. */
	systemPrompt?: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null;
}

function isContent(value: unknown): value is string | (TextContent | ImageContent)[] {
	return (
		typeof value === "string" ||
		(Array.isArray(value) && value.every((block) => isRecord(block) && typeof block.type === "string"))
	);
}

/** A handler's `{message?, systemPrompt?}`; throws on a malformed one. */
function startResult(value: unknown): { message?: CustomMessage; systemPrompt?: string } | undefined {
	if (value === undefined || value === null) return undefined;
	if (!isRecord(value))
		throw new TypeError("before_agent_start: a handler must return nothing or {message?, systemPrompt?}");
	const result: { message?: CustomMessage; systemPrompt?: string } = {};
	if (value.systemPrompt !== undefined) {
		if (typeof value.systemPrompt !== "string")
			throw new TypeError("before_agent_start: `systemPrompt` must be a string");
		result.systemPrompt = value.systemPrompt;
	}
	if (value.message !== undefined) {
		const message = value.message;
		if (!isRecord(message) || typeof message.customType !== "string" || !isContent(message.content ?? []))
			throw new TypeError(
				"before_agent_start: `message` needs a string `customType` and a string or content array `content`",
			);
		const custom: CustomMessage = {
			role: "custom",
			customType: message.customType,
			content: isContent(message.content) ? message.content : [],
			display: message.display !== false,
			timestamp: Date.now(),
		};
		if (message.details !== undefined) custom.details = message.details;
		result.message = custom;
	}
	return result;
}

/**
 * `before_agent_start`: each handler sees the system prompt as earlier ones left it (also through
 * `ctx.getSystemPrompt()`); their messages are collected in order.
 */
export async function beforeAgentStartHook(
	dispatch: Dispatch,
	trigger: AgentStartTrigger,
	basePrompt: string,
	options: SystemPromptOptions,
): Promise<AgentStartOutcome> {
	let systemPrompt = basePrompt;
	let replaced = false;
	const messages: CustomMessage[] = [];
	for (const [record, handler] of dispatch.handlers("before_agent_start")) {
		const event = {
			...trigger,
			type: "before_agent_start",
			systemPrompt,
			systemPromptOptions: structuredClone(options),
		};
		const outcome = await dispatch.invoke(record, handler, event, { systemPrompt: () => systemPrompt });
		if (!outcome.ok) continue;
		const result = dispatch.read(record, "before_agent_start", () => startResult(outcome.value));
		if (result?.message) messages.push(result.message);
		if (result?.systemPrompt !== undefined) {
			systemPrompt = result.systemPrompt;
			replaced = true;
		}
	}
	return replaced ? { messages, systemPrompt } : { messages };
}

/** `context`: each handler gets a copy of the messages and may return replacements (they chain). */
export async function contextHook(
	dispatch: Dispatch,
	messages: AgentMessage[],
	signal: AbortSignal,
): Promise<AgentMessage[]> {
	let current = messages;
	for (const [record, handler] of dispatch.handlers("context")) {
		const event = { type: "context", messages: structuredClone(current) };
		const outcome = await dispatch.invoke(record, handler, event, { signal });
		if (!outcome.ok) continue;
		const replacement = dispatch.read(record, "context", () => {
			const value = outcome.value;
			if (value === undefined || value === null) return undefined;
			if (!isRecord(value)) throw new TypeError("context: a handler must return nothing or {messages}");
			if (value.messages === undefined) return undefined;
			if (
				!Array.isArray(value.messages) ||
				!value.messages.every((message) => isRecord(message) && typeof message.role === "string")
			)
				throw new TypeError("context: `messages` must be an array of messages");
			return value.messages as AgentMessage[];
		});
		if (replacement) current = replacement;
	}
	return current;
}
