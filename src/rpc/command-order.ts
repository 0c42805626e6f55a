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

/**
 * The commands that may start while a long command ahead of them runs, once it has opened the
 * order (`compact` does, once started): they only read what that command changes at its end, or
 * only queue input for later. Everything that changes what others read waits for it to finish.
 */
export const OPEN_ORDER_COMMANDS: ReadonlySet<CommandType> = new Set<CommandType>([
	"get_state",
	"get_messages",
	"get_session_stats",
	"get_entries",
	"get_tree",
	"get_fork_messages",
	"get_last_assistant_text",
	"get_available_models",
	"get_available_thinking_levels",
	"get_commands",
	"get_mcp_servers",
	"export_html",
	"prompt",
	"steer",
	"follow_up",
]);

export function isImmediate(type: string): boolean {
	return IMMEDIATE_COMMANDS.has(type as CommandType);
}

export function mayEnterOpenOrder(type: string): boolean {
	return OPEN_ORDER_COMMANDS.has(type as CommandType);
}

/** What a running piece of ordered work may do to let later work start before it is done. */
export interface OrderRelease {
	/** Every later command may start (a prompt once accepted, bash once started). */
	release(): void;
	/** Later commands of OPEN_ORDER_COMMANDS may start; the others wait for `release` or the end. */
	open(): void;
}

/**
 * Runs one piece of ordered work. Work that never releases holds the order until it settles.
 * Must not reject.
 */
export type OrderedWork = (order: OrderRelease) => Promise<void>;

/**
 * One ordered stream: each piece of work starts after the work before it released the order, in
 * arrival order; work that may enter an open order (`open: true`) starts once everything before
 * it has at least opened it. When nothing holds the order, work starts at once (synchronously), so
 * an `abort` written right after a `prompt` always finds that prompt started.
 */
export class CommandOrder {
	/** Resolves when all scheduled work has released the order. */
	private released: Promise<void> = Promise.resolve();
	/** Resolves when all scheduled work has at least opened it. */
	private opened: Promise<void> = Promise.resolve();
	/** Work scheduled and not yet released / not yet opened (released work counts as opened). */
	private holding = 0;
	private closing = 0;

	/** Schedules work; returns the promise of its completion (not of its release). */
	schedule(work: OrderedWork, { open = false }: { open?: boolean } = {}): Promise<void> {
		let signalOpen: () => void = () => undefined;
		let signalRelease: () => void = () => undefined;
		const opened = new Promise<void>((resolve) => {
			signalOpen = resolve;
		});
		const released = new Promise<void>((resolve) => {
			signalRelease = resolve;
		});
		let isOpen = false;
		let isReleased = false;
		const openOrder = () => {
			if (isOpen) return;
			isOpen = true;
			this.closing--;
			signalOpen();
		};
		const release = () => {
			openOrder();
			if (isReleased) return;
			isReleased = true;
			this.holding--;
			signalRelease();
		};
		const start = (): Promise<void> => work({ release, open: openOrder }).finally(release);
		const ready = open ? this.closing === 0 : this.holding === 0;
		const waitFor = open ? this.opened : this.released;
		this.holding++;
		this.closing++;
		// Later work waits for this one as well as for what this one waited for.
		this.released = Promise.all([this.released, released]).then(() => undefined);
		this.opened = Promise.all([this.opened, opened]).then(() => undefined);
		return ready ? start() : waitFor.then(start);
	}
}
