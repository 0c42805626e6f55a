import type { Session } from "../../session/session.js";
import { SessionSlot } from "./session-slot.js";

/**
 * The one owner of which session is current (and so of the working directory, which is the
 * session's). Writes go through `record`, which reports a failed write (a full disk) as a
 * warning instead of throwing into whatever caused it.
 */
export class CurrentSession {
	private currentSlot: SessionSlot;

	constructor(
		session: Session,
		private readonly reports: { warn(message: string): void },
	) {
		this.currentSlot = new SessionSlot(session);
	}

	get slot(): SessionSlot {
		return this.currentSlot;
	}

	get session(): Session {
		return this.currentSlot.session;
	}

	get cwd(): string {
		return this.currentSlot.session.cwd;
	}

	/** Makes `session` current; the previous slot closes once its running bash commands finished. */
	replace(session: Session): void {
		const previous = this.currentSlot;
		this.currentSlot = new SessionSlot(session);
		previous.retire();
	}

	/**
	 * Runs a write on the current session (or on `slot`'s, for work that started there). Returns
	 * whether it succeeded; a failure is reported as a warning ending with `consequence`.
	 */
	record(write: (session: Session) => unknown, slot: SessionSlot = this.currentSlot, consequence = ""): boolean {
		try {
			write(slot.session);
			return true;
		} catch (error) {
			const reason = error instanceof Error ? error.message : String(error);
			this.reports.warn(`The session could not be saved: ${reason}.${consequence}`);
			return false;
		}
	}
}
