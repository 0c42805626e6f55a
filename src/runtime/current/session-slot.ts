import type { BashExecutionMessage } from "../../agent/messages.js";
import type { Session } from "../../session/session.js";

/**
 * One session as the runtime holds it: the session store, bash results waiting for the next
 * prompt, and how many direct bash commands started in it are still running. A replaced slot
 * stays open until its last command has recorded its result, then closes its file.
 */
export class SessionSlot {
	/** Bash results that finished while a run was active; recorded when the run ends. */
	readonly pendingBash: BashExecutionMessage[] = [];
	private running = 0;
	private replaced = false;

	constructor(readonly session: Session) {}

	/** Marks a bash command started in this session. */
	acquire(): void {
		this.running++;
	}

	/** A bash command of this session finished. */
	release(): void {
		this.running--;
		this.closeIfDone();
	}

	/** The runtime moved on to another session. */
	retire(): void {
		this.replaced = true;
		this.closeIfDone();
	}

	get isRetired(): boolean {
		return this.replaced;
	}

	private closeIfDone(): void {
		if (this.replaced && this.running === 0) this.session.close();
	}
}
