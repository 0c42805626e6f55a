import type { AssistantMessageEvent } from "../llm/types.js";
import type { AgentSessionEvent } from "../runtime/events.js";

/**
 * The wire form of a session event. `message_update` carries only the delta (never the partial
 * message) plus the usage so far; `done`/`error` deltas lose the final message, which goes out
 * once in `message_end`. `queue_update` lists the texts and, additively, the items with their ids.
 */
export function wireEvent(event: AgentSessionEvent): Record<string, unknown> {
	switch (event.type) {
		case "message_update":
			return {
				type: "message_update",
				assistantMessageEvent: deltaOnly(event.assistantMessageEvent),
				usage: event.message.usage,
			};
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
