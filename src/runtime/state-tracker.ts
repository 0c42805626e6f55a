import type { SessionState } from "./agent-session-types.js";
import type { StateChanges } from "./events.js";

/**
 * Keeps what clients were last told of get_state and announces every difference as one
 * `state_changed`, whatever caused it. A check is scheduled after anything that may change the
 * state and runs once per turn of the event loop (so a burst costs one event); `flush()` runs it
 * now, e.g. before a command's response is written, so the change is announced first.
 */
export class StateTracker {
	private told: Map<string, string>;
	private scheduled = false;

	constructor(
		private readonly read: () => SessionState,
		private readonly announce: (changes: StateChanges) => void,
	) {
		this.told = serialise(read());
	}

	schedule(): void {
		if (this.scheduled) return;
		this.scheduled = true;
		queueMicrotask(() => this.flush());
	}

	flush(): void {
		this.scheduled = false;
		const state = this.read();
		const now = serialise(state);
		const changes: Record<string, unknown> = {};
		let changed = false;
		for (const [key, text] of now) {
			if (this.told.get(key) === text) continue;
			changes[key] = state[key as keyof SessionState];
			changed = true;
		}
		for (const key of this.told.keys()) {
			if (now.has(key)) continue;
			changes[key] = null;
			changed = true;
		}
		this.told = now;
		if (changed) this.announce(changes as StateChanges);
	}
}

function serialise(state: SessionState): Map<string, string> {
	const fields = new Map<string, string>();
	for (const [key, value] of Object.entries(state)) {
		if (value !== undefined) fields.set(key, JSON.stringify(value));
	}
	return fields;
}
