import type { AgentMessage } from "../../agent/messages.js";
import type { AgentStartTrigger } from "../../extensions/index.js";
import type { ImageContent } from "../../llm/types.js";
import type { ExtensionBridge } from "../extensions/bridge.js";

/** What started a run, from its first message (a user prompt or an extension's custom message). */
function triggerOf(first: AgentMessage | undefined): AgentStartTrigger | undefined {
	if (first?.role === "custom") return { messageType: "custom", message: first };
	if (first?.role !== "user") return undefined;
	if (typeof first.content === "string") return { messageType: "user", prompt: first.content };
	const prompt = first.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
	const images = first.content.filter((block): block is ImageContent => block.type === "image");
	return images.length > 0 ? { messageType: "user", prompt, images } : { messageType: "user", prompt };
}

/** The owner of the system prompt (ToolsAndPrompt): a run may replace it until the run is over. */
export interface PromptOwner {
	readonly systemPrompt: string;
	replaceSystemPrompt(text: string | undefined): void;
}

export interface RunStart {
	/** The run's starting messages, with what `before_agent_start` handlers added at the end. */
	messages: AgentMessage[];
	/** Puts back the built system prompt when a handler replaced it (call when the run is over). */
	restore(): void;
}

/**
 * `before_agent_start` for a run about to start with `messages`: handlers may add messages and
 * replace the system prompt for this run only. Without handlers it answers at once (no await), so
 * a run without them starts exactly when it did before extensions could hook in.
 */
export function startRun(
	extensions: ExtensionBridge,
	prompt: PromptOwner,
	messages: AgentMessage[],
): RunStart | Promise<RunStart> {
	const unchanged: RunStart = { messages, restore: () => undefined };
	const trigger = triggerOf(messages[0]);
	if (!trigger || !extensions.hasHandlers("before_agent_start")) return unchanged;
	return applyStart(extensions, prompt, messages, trigger);
}

async function applyStart(
	extensions: ExtensionBridge,
	prompt: PromptOwner,
	messages: AgentMessage[],
	trigger: AgentStartTrigger,
): Promise<RunStart> {
	const outcome = await extensions.beforeAgentStart(trigger, prompt.systemPrompt);
	if (!outcome) return { messages, restore: () => undefined };
	if (outcome.systemPrompt !== undefined) prompt.replaceSystemPrompt(outcome.systemPrompt);
	return {
		messages: [...messages, ...outcome.messages],
		restore: () => {
			if (outcome.systemPrompt !== undefined) prompt.replaceSystemPrompt(undefined);
		},
	};
}
