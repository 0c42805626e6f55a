import type { AgentSession } from "../runtime/facade/agent-session.js";
import type { RpcApprovals } from "./approvals.js";
import { CommandOrder, isImmediate, mayEnterOpenOrder, type OrderRelease } from "./command-order.js";
import type { RpcExtensionUi } from "./extension-ui.js";
import type { RecordText } from "./framing.js";
import { handleCommand } from "./handlers.js";
import type { Command, ExtensionUiResponse } from "./protocol/commands.js";
import type { ErrorResponse } from "./protocol/responses.js";
import { parseInput } from "./protocol/validate.js";
import { createWireEncoder } from "./wire-events.js";

/** Where records go: the process's stdout (OutputWriter), or one network client. */
export interface RecordSink {
	write(record: unknown): Promise<void> | undefined;
}

/** The order of a command that overtakes: it holds nothing to release. */
const UNORDERED: OrderRelease = { release: () => undefined, open: () => undefined };

/**
 * The RPC dispatcher: validates each input record, runs commands in arrival order (see
 * command-order.ts for the few that overtake), writes exactly one response per command, and
 * forwards the session's events. Never throws on input.
 */
export class RpcServer {
	private readonly order = new CommandOrder();
	private readonly inFlight = new Set<Promise<void>>();
	private readonly unsubscribe: () => void;
	/** Records that arrived while an earlier one waits for the full validator, in order. */
	private held: { record: RecordText; replyTo: RecordSink }[] | undefined;

	constructor(
		private readonly session: AgentSession,
		/** Where events go, and by default responses. */
		private readonly writer: RecordSink,
		private readonly ui?: RpcExtensionUi,
		/** Called after each command's response was written. */
		private readonly afterResponse: () => void = () => undefined,
		/** Where `tool_approval_response` answers go. */
		private readonly approvals?: RpcApprovals,
	) {
		const encode = createWireEncoder();
		this.unsubscribe = session.subscribe((event) => this.writer.write(encode(event)));
	}

	/**
	 * Handles one input record (called in input order); its response, and the records a command
	 * streams (bash output), go to `replyTo` (default: where events go).
	 */
	handleRecord(record: RecordText, replyTo: RecordSink = this.writer): void {
		if (this.held) {
			this.held.push({ record, replyTo });
			return;
		}
		const input = parseInput(record);
		if (input.kind === "wait") {
			// Rare (an invalid command before the validator was needed): later records keep their place.
			const held = [{ record, replyTo }];
			this.held = held;
			this.track(
				input.ready.then(() => {
					this.held = undefined;
					for (const next of held) this.handleRecord(next.record, next.replyTo);
				}),
			);
			return;
		}
		if (input.kind === "error") this.handleError(input.response, replyTo);
		else if (input.kind === "ui_response") this.handleUiResponse(input.response);
		else this.handleCommand(input.command, replyTo);
	}

	/** A record that was not a valid command: its one error response, in order like any command. */
	handleError(response: ErrorResponse, replyTo: RecordSink = this.writer): void {
		// Awaited like any response: a client that floods bad input without reading waits too.
		this.track(this.order.schedule(async () => await replyTo.write(response)));
	}

	/** A dialog answer gets no response; an unknown id is ignored. */
	handleUiResponse(response: ExtensionUiResponse): void {
		this.ui?.handleResponse(response);
	}

	/** A validated command: run in arrival order (a few overtake); its response goes to `replyTo`. */
	handleCommand(command: Command, replyTo: RecordSink = this.writer): void {
		if (isImmediate(command.type)) this.track(this.run(command, UNORDERED, replyTo));
		else {
			const open = mayEnterOpenOrder(command.type);
			this.track(this.order.schedule((order) => this.run(command, order, replyTo), { open }));
		}
	}

	/** Resolves once every command received so far has been answered. */
	async settle(): Promise<void> {
		while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
	}

	detach(): void {
		this.unsubscribe();
	}

	private async run(command: Command, order: OrderRelease, replyTo: RecordSink): Promise<void> {
		const response = await handleCommand(command, {
			session: this.session,
			emit: (record) => replyTo.write(record),
			release: order.release,
			open: order.open,
			approvals: this.approvals,
		});
		if (response) {
			// What the command changed is announced (state_changed) before its response.
			this.session.flushState();
			await replyTo.write(response);
		}
		this.afterResponse();
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
