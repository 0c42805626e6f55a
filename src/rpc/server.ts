import type { AgentSession } from "../runtime/agent-session.js";
import type { RecordText } from "./framing.js";
import { handleCommand } from "./handlers.js";
import type { OutputWriter } from "./output.js";
import type { Command, CommandType } from "./protocol/commands.js";
import { parseInput } from "./protocol/validate.js";
import { wireEvent } from "./wire-events.js";

/**
 * Commands answered at once even while an earlier command is still running (a prompt being
 * accepted, a session switch): control and cheap reads. Everything else waits its turn, FIFO.
 */
const IMMEDIATE: ReadonlySet<CommandType> = new Set<CommandType>([
	"abort",
	"abort_bash",
	"abort_retry",
	"abort_compaction",
	"bash",
	"steer",
	"follow_up",
	"get_state",
	"clear_queue",
]);

/**
 * The RPC dispatcher: validates each input record, runs it on its lane, writes exactly one
 * response per command, and forwards the session's events. Never throws on input.
 */
export class RpcServer {
	private ordered: Promise<void> = Promise.resolve();
	private readonly inFlight = new Set<Promise<void>>();
	private readonly unsubscribe: () => void;

	constructor(
		private readonly session: AgentSession,
		private readonly writer: OutputWriter,
	) {
		this.unsubscribe = session.subscribe((event) => this.writer.write(wireEvent(event)));
	}

	/** Handles one input record (called in input order). */
	handleRecord(record: RecordText): void {
		const input = parseInput(record);
		if (input.kind === "error") {
			this.writer.write(input.response);
			return;
		}
		if (input.kind === "ui_response") return; // no extension dialogs are open without extensions
		const command = input.command;
		if (IMMEDIATE.has(command.type)) this.track(this.run(command));
		else {
			const next = this.ordered.then(() => this.run(command));
			this.ordered = next;
			this.track(next);
		}
	}

	/** Resolves once every command received so far has been answered. */
	async settle(): Promise<void> {
		while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
	}

	detach(): void {
		this.unsubscribe();
	}

	private async run(command: Command): Promise<void> {
		const response = await handleCommand(command, {
			session: this.session,
			emit: (record) => {
				this.writer.write(record);
			},
		});
		if (response) await this.writer.write(response);
	}

	private track(work: Promise<void>): void {
		const tracked = work.catch((error: unknown) => {
			process.stderr.write(
				`Internal error while handling a command: ${error instanceof Error ? error.stack : String(error)}\n`,
			);
		});
		this.inFlight.add(tracked);
		void tracked.then(() => this.inFlight.delete(tracked));
	}
}
