import { randomHex } from "../platform/random.js";
import type { AgentMessage } from "./messages.js";
import type { QueuedItem } from "./types.js";

export type QueueMode = "all" | "one-at-a-time";

export interface QueuedMessage extends QueuedItem {
	message: AgentMessage;
}

/**
 * A FIFO of user messages waiting for delivery (steering or follow-up). `one-at-a-time` hands out
 * the oldest message per delivery point, `all` everything queued. Every message has an id.
 */
export class MessageQueue {
	private items: QueuedMessage[] = [];

	constructor(public mode: QueueMode = "one-at-a-time") {}

	get size(): number {
		return this.items.length;
	}

	enqueue(message: AgentMessage, text: string): QueuedMessage {
		const item = { id: randomHex(4), text, message };
		this.items.push(item);
		return item;
	}

	/** Takes the messages due now according to the mode. */
	take(): QueuedMessage[] {
		if (this.items.length === 0) return [];
		return this.mode === "all" ? this.items.splice(0) : this.items.splice(0, 1);
	}

	/** Removes everything and returns what was queued. */
	clear(): QueuedMessage[] {
		return this.items.splice(0);
	}

	/** Removes one message by id; returns it when it was queued. */
	remove(id: string): QueuedMessage | undefined {
		const index = this.items.findIndex((item) => item.id === id);
		return index < 0 ? undefined : this.items.splice(index, 1)[0];
	}

	list(): QueuedItem[] {
		return this.items.map(({ id, text }) => ({ id, text }));
	}
}
