import type { CommandType } from "./protocol/commands.js";

/**
 * The commands that may overtake the ones ahead of them: they neither read nor change anything a
 * later command depends on, and each must be able to reach work that an earlier command holds.
 */
export const IMMEDIATE_COMMANDS: ReadonlySet<CommandType> = new Set<CommandType>([
	"abort",
	"abort_bash",
	"abort_retry",
	"abort_compaction",
	"tool_approval_response",
]);

export function isImmediate(type: string): boolean {
	return IMMEDIATE_COMMANDS.has(type as CommandType);
}

/**
 * Runs one piece of ordered work. `release` lets the next one start before this one is done
 * (a prompt once it is accepted, bash once it has started); work that never calls it holds the
 * order until it settles. Must not reject.
 */
export type OrderedWork = (release: () => void) => Promise<void>;

/**
 * One ordered stream: each piece of work starts after the one before it released the order, in
 * arrival order. When nothing holds the order, work starts at once (synchronously), so an `abort`
 * written right after a `prompt` always finds that prompt started.
 */
export class CommandOrder {
	/** Resolves when the last scheduled work has released the order. */
	private tail: Promise<void> = Promise.resolve();
	/** Work scheduled and not yet released. */
	private holding = 0;

	/** Schedules work; returns the promise of its completion (not of its release). */
	schedule(work: OrderedWork): Promise<void> {
		let releaseOrder: () => void = () => undefined;
		const released = new Promise<void>((resolve) => {
			releaseOrder = resolve;
		});
		let isReleased = false;
		const release = () => {
			if (isReleased) return;
			isReleased = true;
			this.holding--;
			releaseOrder();
		};
		const start = (): Promise<void> => work(release).finally(release);
		const idle = this.holding === 0;
		this.holding++;
		const previous = this.tail;
		this.tail = released;
		return idle ? start() : previous.then(start);
	}
}
