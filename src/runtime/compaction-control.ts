import {
	CompactionCancelledError,
	type CompactionParameterInput,
	type CompactionResult,
	type CompactionUrgency,
	compactionEntryFields,
	prepareCompaction,
	type RequestPlanner,
	runCompaction,
} from "../compaction/index.js";
import type { Model } from "../llm/types.js";
import type { Session } from "../session/session.js";
import type { AgentSessionEvent, CompactionReason } from "./events.js";
import { SideRequestCancelled, type SideRequestHost, sideRequest } from "./side-request.js";

/** `willRetry`: the prompt continues after it (overflow); `midTurn`: between a run's tool calls and its next call. */
export interface CompactionFlags {
	willRetry?: boolean;
	midTurn?: boolean;
}

export const NOTHING_TO_COMPACT = "Nothing to compact (session too small)";
export const COMPACTION_CANCELLED = "Compaction cancelled";

/** What compaction needs from the session it works for. */
export interface CompactionHost extends SideRequestHost {
	session(): Session;
	model(): Model | undefined;
	/** settings.compaction (hand-edited, so validated when used). */
	settings(): CompactionParameterInput | undefined;
	/** Estimate of the current context size. */
	contextTokens(): number;
	emit(event: AgentSessionEvent): void;
	/** Rebuilds the conversation from the session after a boundary was appended. */
	applyContext(): void;
}

const BACKUP_LABELS: Record<CompactionReason, string> = {
	manual: "compact",
	threshold: "auto-compact",
	overflow: "overflow-auto-compact",
};

/**
 * Runs verbatim-lines compactions for a session, one at a time: prepares the region, asks the
 * session model for deletion ranges (retrying transient errors), writes a backup, appends the
 * durable boundary and reports compaction_start / compaction_end.
 */
export class CompactionControl {
	private active:
		| { reason: CompactionReason; controller: AbortController; done: Promise<CompactionResult> }
		| undefined;

	constructor(private readonly host: CompactionHost) {}

	get isCompacting(): boolean {
		return this.active !== undefined;
	}

	/** Cancels the running compaction. Returns true when there was one. */
	abort(): boolean {
		if (!this.active) return false;
		this.active.controller.abort();
		return true;
	}

	/**
	 * Compacts now. Manual and threshold compactions are "recoverable" (a failed plan is an
	 * error, nothing written); overflow recovery is load-bearing (a failed plan falls back to
	 * dropping the region). A manual compaction takes over from a running automatic one (which is
	 * cancelled); otherwise a call joins the compaction already running. Throws NOTHING_TO_COMPACT
	 * before any event when the conversation is too small (unless load-bearing).
	 */
	async compact(
		reason: CompactionReason,
		options: CompactionParameterInput = {},
		flags: CompactionFlags = {},
	): Promise<CompactionResult> {
		const running = this.active;
		if (running) {
			if (reason !== "manual" || running.reason === "manual") return running.done;
			running.controller.abort();
			await running.done.catch(() => undefined);
		}
		return this.start(reason, options, flags);
	}

	private start(
		reason: CompactionReason,
		options: CompactionParameterInput,
		flags: CompactionFlags,
	): Promise<CompactionResult> {
		const model = this.host.model();
		if (!model) return Promise.reject(new Error("No model selected: compaction needs the session model."));
		const urgency: CompactionUrgency = reason === "overflow" ? "load_bearing" : "recoverable";
		const session = this.host.session();
		const preparation = prepareCompaction(
			session.getBranch(),
			{ options, settings: this.host.settings() },
			{ allowSmallRegion: urgency === "load_bearing" },
		);
		if (!preparation) return Promise.reject(new Error(NOTHING_TO_COMPACT));
		const controller = new AbortController();
		const done = this.run(reason, urgency, flags, model, session, preparation, controller.signal);
		const active = { reason, controller, done };
		this.active = active;
		const clear = () => {
			if (this.active === active) this.active = undefined;
		};
		done.then(clear, clear);
		return done;
	}

	private async run(
		reason: CompactionReason,
		urgency: CompactionUrgency,
		{ willRetry = false, midTurn = false }: CompactionFlags,
		model: Model,
		session: Session,
		preparation: NonNullable<ReturnType<typeof prepareCompaction>>,
		signal: AbortSignal,
	): Promise<CompactionResult> {
		this.host.emit(midTurn ? { type: "compaction_start", reason, midTurn } : { type: "compaction_start", reason });
		try {
			const { result } = await runCompaction({
				preparation,
				urgency,
				contextWindow: model.contextWindow,
				wholeContextTokensBefore: this.host.contextTokens(),
				requestPlanner: this.planner(model, reason),
				signal,
			});
			if (signal.aborted) throw new CompactionCancelledError();
			const backupPath = session.writeBackup(BACKUP_LABELS[reason]);
			const applied: CompactionResult = backupPath === undefined ? result : { ...result, backupPath };
			session.appendCompaction(compactionEntryFields(applied));
			this.host.applyContext();
			this.host.emit({ type: "compaction_end", reason, result: applied, aborted: false, willRetry });
			return applied;
		} catch (error) {
			const aborted = error instanceof CompactionCancelledError || signal.aborted;
			const message = aborted ? COMPACTION_CANCELLED : error instanceof Error ? error.message : String(error);
			const end: AgentSessionEvent = { type: "compaction_end", reason, result: null, aborted, willRetry: false };
			if (!aborted) end.errorMessage = message;
			if (!aborted && urgency === "load_bearing") end.unresolvedOverflow = true;
			this.host.emit(end);
			throw new Error(message, { cause: error });
		}
	}

	/** One planner request to the session model, retrying transient failures like chat turns do. */
	private planner(model: Model, reason: CompactionReason): RequestPlanner {
		return async (systemPrompt, userText, signal) => {
			try {
				return await sideRequest(this.host, model, { systemPrompt, userText }, signal, {
					source: "compaction",
					reason,
				});
			} catch (error) {
				if (error instanceof SideRequestCancelled) throw new CompactionCancelledError();
				throw error;
			}
		};
	}
}
