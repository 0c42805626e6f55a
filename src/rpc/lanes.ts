import type { Command, CommandType } from "./protocol/commands.js";

/**
 * Control commands and direct bash run as soon as they arrive, whatever else is running: they
 * must be able to stop (or run beside) what the ordered lane is busy with.
 */
const IMMEDIATE: ReadonlySet<CommandType> = new Set<CommandType>([
	"abort",
	"abort_bash",
	"abort_retry",
	"abort_compaction",
	"bash",
	"user_bash",
	"pause_queued_messages",
	"resume_queued_messages",
	"steer",
	"follow_up",
	"clear_queue",
	// An answer unblocks a running prompt: it must never wait behind the command after it.
	"tool_approval_response",
]);

/** Commands that may keep the ordered lane busy for long (model calls, session files, dialogs). */
const LONG: ReadonlySet<CommandType> = new Set<CommandType>([
	"compact",
	"new_session",
	"switch_session",
	"fork",
	"clone",
	"export_html",
	"import_session",
	"navigate_tree",
]);

/**
 * Decides when each command runs. Most commands take the ordered lane: one at a time, in arrival
 * order, and when the lane is idle the command starts at once (synchronously), so an `abort`
 * sent right after it cannot overtake its start. Control commands run immediately. `get_state`
 * runs in order too, except while a long command occupies the lane: then it is answered at once.
 */
export class Lanes {
	private tail: Promise<void> = Promise.resolve();
	private pending = 0;
	private longPending = 0;

	constructor(private readonly run: (command: Command) => Promise<void>) {}

	/** Schedules a command; returns the promise of its completion. */
	schedule(command: Command): Promise<void> {
		if (IMMEDIATE.has(command.type) || (command.type === "get_state" && this.longPending > 0)) {
			return this.run(command);
		}
		const long = LONG.has(command.type);
		this.pending++;
		if (long) this.longPending++;
		const start = () => this.run(command);
		const work = this.pending === 1 ? start() : this.tail.then(start);
		const done = work.finally(() => {
			this.pending--;
			if (long) this.longPending--;
		});
		this.tail = done.catch(() => undefined);
		return done;
	}
}
