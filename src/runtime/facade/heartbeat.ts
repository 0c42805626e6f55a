import { timerDelay } from "../../llm/timer-limit.js";
import type { WaitingOn } from "../runs/activity.js";

/** Default quiet time after which a busy session sends a heartbeat. */
export const DEFAULT_HEARTBEAT_MS = 5000;

/**
 * While the session is busy and has reported nothing for `intervalMs`, sends a heartbeat naming
 * what it waits on, so a client can tell a slow model or tool from a hung process. Every event
 * (the heartbeat included) restarts the quiet time. 0 turns it off. The timer never keeps the
 * process alive, and an idle session has none.
 */
export class Heartbeat {
	private timer: NodeJS.Timeout | undefined;
	private lastEvent = Date.now();

	constructor(
		private intervalMs: number,
		private readonly waitingOn: () => WaitingOn | undefined,
		private readonly send: (waitingOn: WaitingOn, idleMs: number) => void,
	) {}

	/** Something was reported (or the session became busy): the quiet time starts again. */
	touch(): void {
		this.lastEvent = Date.now();
		this.arm();
	}

	setInterval(intervalMs: number): void {
		this.intervalMs = intervalMs;
		this.arm();
	}

	stop(): void {
		clearTimeout(this.timer);
		this.timer = undefined;
	}

	private arm(): void {
		// An idle session keeps no timer (an event of it, such as agent_settled, clears the last one).
		if (this.intervalMs <= 0 || !this.waitingOn()) {
			this.stop();
			return;
		}
		if (this.timer) return;
		this.timer = setTimeout(() => this.fire(), timerDelay(this.intervalMs));
		this.timer.unref();
	}

	private fire(): void {
		this.timer = undefined;
		const waitingOn = this.waitingOn();
		if (!waitingOn || this.intervalMs <= 0) return;
		const idleMs = Date.now() - this.lastEvent;
		if (idleMs < this.intervalMs) {
			this.timer = setTimeout(() => this.fire(), timerDelay(this.intervalMs - idleMs));
			this.timer.unref();
			return;
		}
		this.send(waitingOn, idleMs);
	}
}
