import { Agent } from "../agent/agent.js";
import type { AgentEvent, AgentTool } from "../agent/types.js";
import { canRehearse, rehearseModel } from "../llm/registry.js";
import { Type } from "../llm/schema-builders.js";
import type { Model, ThinkingLevel } from "../llm/types.js";

/** The tool the canned replies call (ProviderModule.rehearseReply): it does nothing. */
const warmTool: AgentTool = {
	name: "warm",
	description: "Does nothing.",
	parameters: Type.Object({ a: Type.Optional(Type.Number()) }),
	readOnly: true,
	async execute() {
		return { content: [{ type: "text", text: "ok" }] };
	},
};

/**
 * One tool loop through the agent loop, the registry and the provider's own request and stream
 * code, with canned replies in place of the model (ProviderModule.rehearseReply): a text and a call
 * to a tool that does nothing, then a text. Nothing is sent and nothing is kept; `onEvent` sees the
 * loop's events (the RPC layer serializes them, to discard). The first real prompt then runs code
 * that has run before instead of code met for the first time (a bash tool loop after 1 s idle:
 * 22.6 → 18.8 ms on this kind of machine). Resolves false when the model's provider has no canned replies.
 */
export async function rehearseToolLoop(
	model: Model,
	thinkingLevel: ThinkingLevel,
	onEvent?: (event: AgentEvent) => void,
): Promise<boolean> {
	if (!(await canRehearse(model.api))) return false;
	const agent = new Agent({
		config: { model, thinkingLevel, tools: [warmTool], streamFunction: rehearseModel },
	});
	if (onEvent) agent.subscribe(onEvent);
	const messages = await agent.prompt({ role: "user", content: [{ type: "text", text: "." }], timestamp: Date.now() });
	const last = messages.at(-1);
	if (last?.role !== "assistant" || last.stopReason !== "stop") {
		const reason = last?.role === "assistant" ? (last.errorMessage ?? last.stopReason) : "no reply";
		throw new Error(`rehearsal ended without its text reply: ${reason}`);
	}
	return true;
}
