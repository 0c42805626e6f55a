import type { RpcEvent } from "../../src/rpc/client/index.js";

/** The text a reply streamed: its `message_update` text deltas, joined. */
export function replyText(events: readonly RpcEvent[]): string {
	return events
		.map((event) =>
			event.type === "message_update" && event.assistantMessageEvent.type === "text_delta"
				? event.assistantMessageEvent.delta
				: "",
		)
		.join("");
}
