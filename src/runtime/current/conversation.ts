import type { AgentMessage, BashExecutionMessage } from "../../agent/messages.js";
import { keepSpillFilesOf } from "../../tools/spill-files.js";
import type { CurrentSession } from "./current-session.js";
import type { SessionSlot } from "./session-slot.js";

/** What the conversation asks of the prompt run going on. */
export interface RunControl {
	/** Whether a prompt's run is going on now. */
	readonly isStreaming: boolean;
	/** Stops the run going on (as abort does for it alone). */
	stop(): void;
}

const STOPPED = " The run was stopped; the conversation keeps only what is saved.";
const NOT_ADDED = " The message was not added to the conversation.";

/**
 * The conversation the agent works on: one array, kept for the life of the session object and
 * rebuilt in place (a run in progress holds it), and the rules for recording what joins it. It
 * never holds a message the session file does not: a message whose write fails (disk full) is
 * dropped, and so is every later message of the same run (so that the file never holds tool
 * results without the call they answer); the run is stopped and a warning says so.
 */
export class Conversation {
	readonly messages: AgentMessage[];
	/** Messages that are not in the file and must leave (or never join) the conversation. */
	private readonly dropped = new WeakSet<AgentMessage>();
	/** A write failed in the run going on: its later messages are dropped too. */
	private failing = false;

	constructor(
		private readonly current: CurrentSession,
		private readonly run: RunControl,
	) {
		this.messages = current.session.buildContext().messages;
	}

	/** Rebuilds the messages from the current session's active branch (after a compaction, a navigation, a replacement). */
	rebuild(): void {
		const rebuilt = this.current.session.buildContext().messages;
		this.messages.length = 0;
		for (const message of rebuilt) this.messages.push(message);
	}

	/**
	 * Persists a finished message: custom messages as custom_message entries, the rest as message
	 * entries. Returns false when it is not in the file: its write failed (a warning says so, the
	 * run is stopped, and the message leaves the conversation), or an earlier one of the run did.
	 */
	record(message: AgentMessage, slot: SessionSlot = this.current.slot): boolean {
		if (this.failing && slot === this.current.slot) {
			this.dropped.add(message);
			return false;
		}
		const inRun = this.run.isStreaming && slot === this.current.slot;
		// The full-output files it refers to outlive this process when the session has a file.
		if (slot.session.file !== undefined) keepSpillFilesOf(message);
		const saved = this.current.record(
			(session) => {
				if (message.role !== "custom") {
					session.appendMessage(message);
					return;
				}
				const { customType, content, display, details, excludeFromContext } = message;
				session.appendCustomMessage({ customType, content, display, details, excludeFromContext });
			},
			slot,
			inRun ? STOPPED : NOT_ADDED,
		);
		if (saved) return true;
		this.dropped.add(message);
		this.prune();
		if (inRun) {
			this.failing = true;
			this.run.stop();
		}
		return false;
	}

	/** Records a message outside any run; it joins the conversation once it is in the file. */
	append(message: AgentMessage): void {
		if (this.record(message)) this.messages.push(message);
	}

	/** A run ended (agent_end, after the loop appended its last reply): what was not saved leaves. */
	endRun(): void {
		this.prune();
		this.failing = false;
	}

	/**
	 * A direct bash command finished in `slot`'s session. While a run is active in that session
	 * the result waits (recording it there would split a tool call from its result) until the run
	 * ends; otherwise it is recorded now, and joins the conversation when current.
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

	/** Removes the dropped messages, in place (a running loop holds the array). */
	private prune(): void {
		let kept = 0;
		for (const message of this.messages) {
			if (!this.dropped.has(message)) this.messages[kept++] = message;
		}
		this.messages.length = kept;
	}
}
