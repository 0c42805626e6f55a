import type { SessionState } from "./api-types.js";
import type { AgentSessionEvent, StateChanges } from "./events.js";

/** Events that never change what get_state reports. */
export const STATELESS_EVENTS = new Set<AgentSessionEvent["type"]>([
	"message_update",
	"tool_execution_update",
	"state_changed",
	"heartbeat",
	"context_usage",
	"warning",
]);

/**
 * Keeps what clients were last told of get_state and announces every difference as one
 * `state_changed`, whatever caused it. A check is scheduled after anything that may change the
 * state and runs once per turn of the event loop (so a burst costs one event); `flush()` runs it
 * now, e.g. before a command's response is written, so the change is announced first.
 */
export class StateTracker {
	/** Each field as last told: its value (a field holding the same value is unchanged) and, for an object, its JSON. */
	private told: Map<string, Told>;
	private scheduled = false;

	constructor(
		private readonly read: () => SessionState,
		private readonly announce: (changes: StateChanges) => void,
	) {
		this.told = fields(read());
	}

	schedule(): void {
		if (this.scheduled) return;
		this.scheduled = true;
		queueMicrotask(() => this.flush());
	}

	flush(): void {
		this.scheduled = false;
		const state = this.read();
		const now = fields(state);
		const changes: Record<string, unknown> = {};
		let changed = false;
		for (const [key, field] of now) {
			if (!differs(this.told.get(key), field)) continue;
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
	/** An object's JSON, made when it is first compared with another object. */
	text?: string;
}

/** The state's fields that are set. */
function fields(state: SessionState): Map<string, Told> {
	const map = new Map<string, Told>();
	for (const [key, value] of Object.entries(state)) if (value !== undefined) map.set(key, { value });
	return map;
}

function isObjectValue(value: unknown): value is object {
	return typeof value === "object" && value !== null;
}

/**
 * Whether a field changed: the same value (a primitive, or the very object told before) did not;
 * a primitive that is not the same did; two objects did when their JSON differs. Only objects
 * are serialised, and each once.
 */
function differs(before: Told | undefined, now: Told): boolean {
	if (before === undefined) return true;
	if (before.value === now.value) {
		now.text = before.text;
		return false;
	}
	if (!isObjectValue(before.value) || !isObjectValue(now.value)) return true;
	before.text ??= JSON.stringify(before.value);
	now.text = JSON.stringify(now.value);
	return before.text !== now.text;
}
