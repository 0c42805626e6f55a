import type { AssistantMessageEvent, Usage } from "../llm/types.js";
import type { AgentSessionEvent } from "../runtime/facade/events.js";

export type WireEncoder = (event: AgentSessionEvent) => Record<string, unknown>;

/**
 * Turns session events into their wire form, for one output stream. `message_update` carries only
 * the delta (never the partial message); its `usage` (the usage so far) is included in the first
 * update of a message and afterwards only when it changed, since providers report usage rarely
 * and repeating it would double the bytes of a streamed reply. `done`/`error` deltas lose the
 * final message, which goes out once in `message_end`. `queue_update` lists the texts and,
 * additively, the items with their ids.
 */
export function createWireEncoder(): WireEncoder {
	let lastUsage: string | undefined;
	return (event) => {
		if (event.type === "message_start") lastUsage = undefined;
		if (event.type !== "message_update") return wireEvent(event);
		const record: Record<string, unknown> = {
			type: "message_update",
			assistantMessageEvent: deltaOnly(event.assistantMessageEvent),
		};
		const usage = usageKey(event.message.usage);
		if (usage !== lastUsage) {
			lastUsage = usage;
			record.usage = event.message.usage;
		}
		return record;
	};
}

function usageKey(usage: Usage): string {
	return `${usage.input}/${usage.output}/${usage.cacheRead}/${usage.cacheWrite}/${usage.totalTokens}`;
}

function wireEvent(event: Exclude<AgentSessionEvent, { type: "message_update" }>): Record<string, unknown> {
	switch (event.type) {
		case "queue_update":
			return {
				type: "queue_update",
				steering: event.steering.map((item) => item.text),
				followUp: event.followUp.map((item) => item.text),
				steeringItems: event.steering,
				followUpItems: event.followUp,
			};
		default:
			return event;
	}
}

function deltaOnly(event: AssistantMessageEvent): Record<string, unknown> {
	if (event.type === "done" || event.type === "error") return { type: event.type, reason: event.reason };
	return event;
}
