import type { SessionState } from "./agent-session-types.js";
import type { StateChanges } from "./events.js";

/**
 * Keeps what clients were last told of get_state and announces every difference as one
 * `state_changed`, whatever caused it. A check is scheduled after anything that may change the
 * state and runs once per turn of the event loop (so a burst costs one event); `flush()` runs it
 * now, e.g. before a command's response is written, so the change is announced first.
 */
export class StateTracker {
	/** Each field as last told: its value (a field holding the same object is unchanged) and its JSON. */
	private told: Map<string, Told>;
	private scheduled = false;

	constructor(
		private readonly read: () => SessionState,
		private readonly announce: (changes: StateChanges) => void,
	) {
		this.told = serialise(read(), new Map());
	}

	schedule(): void {
		if (this.scheduled) return;
		this.scheduled = true;
		queueMicrotask(() => this.flush());
	}

	flush(): void {
		this.scheduled = false;
		const state = this.read();
		const now = serialise(state, this.told);
		const changes: Record<string, unknown> = {};
		let changed = false;
		for (const [key, field] of now) {
			if (this.told.get(key)?.text === field.text) continue;
			changes[key] = ownCopy(state[key as keyof SessionState]);
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

/** What an announcement carries is the listeners' own: the state's objects are shared between reads. */
function ownCopy(value: unknown): unknown {
	if (Array.isArray(value)) return [...value];
	return typeof value === "object" && value !== null ? { ...value } : value;
}

interface Told {
	value: unknown;
	text: string;
}

/** The state's fields as JSON; a field whose value is the very object told before keeps its text. */
function serialise(state: SessionState, before: Map<string, Told>): Map<string, Told> {
	const fields = new Map<string, Told>();
	for (const [key, value] of Object.entries(state)) {
		if (value === undefined) continue;
		const known = before.get(key);
		const same = known !== undefined && known.value === value && typeof value === "object";
		fields.set(key, same ? known : { value, text: JSON.stringify(value) });
	}
	return fields;
}
