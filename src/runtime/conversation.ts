import type { AgentMessage, BashExecutionMessage } from "../agent/messages.js";
import type { CurrentSession } from "./current-session.js";
import type { SessionSlot } from "./session-slot.js";

/**
 * The conversation the agent works on: one array, kept for the life of the session object and
 * rebuilt in place (a run in progress holds it), and the rules for recording what joins it.
 */
export class Conversation {
	readonly messages: AgentMessage[];

	constructor(private readonly current: CurrentSession) {
		this.messages = current.session.buildContext().messages;
	}

	/** Rebuilds the messages from the current session's active branch (after a compaction, a navigation, a replacement). */
	rebuild(): void {
		const rebuilt = this.current.session.buildContext().messages;
		this.messages.length = 0;
		for (const message of rebuilt) this.messages.push(message);
	}

	/** Persists a finished message: custom messages as custom_message entries, the rest as message entries. */
	record(message: AgentMessage, slot: SessionSlot = this.current.slot): void {
		if (message.role !== "custom") {
			this.current.record((session) => session.appendMessage(message), slot);
			return;
		}
		const { customType, content, display, details, excludeFromContext } = message;
		this.current.record(
			(session) => session.appendCustomMessage({ customType, content, display, details, excludeFromContext }),
			slot,
		);
	}

	/** Records a message outside any run; it joins the conversation at once. */
	append(message: AgentMessage): void {
		this.record(message);
		this.messages.push(message);
	}

	/**
	 * A direct bash command finished in `slot`'s session. While a run is active in that session
	 * the result waits (recording it there would split a tool call from its result) and joins with
	 * the next prompt; otherwise it is recorded now, and joins the conversation when current.
	 */
	bashFinished(slot: SessionSlot, message: BashExecutionMessage, runActive: boolean): void {
		if (slot !== this.current.slot) this.record(message, slot);
		else if (runActive) slot.pendingBash.push(message);
		else this.append(message);
	}

	/** Records the bash results that waited for the run to end. */
	flushPendingBash(): void {
		for (const message of this.current.slot.pendingBash.splice(0)) this.append(message);
	}
}
