import {
	CompactionCancelledError,
	type CompactionParameterInput,
	type CompactionResult,
	type CompactionUrgency,
	compactionEntryFields,
	prepareCompaction,
	type RequestPlanner,
	runCompaction,
} from "../../compaction/index.js";
import type { Model, ThinkingLevel } from "../../llm/types.js";
import type { Session } from "../../session/session.js";
import type { AgentSessionEvent, CompactionReason } from "../facade/events.js";
import type { AbortTree, Operation } from "../runs/abort-tree.js";
import type { Activity } from "../runs/activity.js";
import { SideRequestCancelled, type SideRequestHost, sideRequest } from "../runs/side-request.js";

/**
 * `willRetry`: the prompt continues after it (overflow); `midTurn`: between a run's tool calls and
 * its next call; `onStarted`: called once this compaction is the one running (isCompacting).
 */
export interface CompactionFlags {
	willRetry?: boolean;
	midTurn?: boolean;
	onStarted?(): void;
}

export const NOTHING_TO_COMPACT = "Nothing to compact (session too small)";
export const COMPACTION_CANCELLED = "Compaction cancelled";

/** What compaction needs from the session it works for. */
export interface CompactionHost extends SideRequestHost {
	current: { readonly session: Session };
	models: { readonly model: Model | undefined; readonly thinkingLevel: ThinkingLevel };
	tree: AbortTree;
	activity: Activity;
	/** settings.compaction (hand-edited, so validated when used). */
	settings(): CompactionParameterInput | undefined;
	/** Estimate of the current context size (0 when unknown). */
	contextTokens(): number;
	/** Rebuilt from the session after a boundary was appended. */
	conversation: { rebuild(): void };
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
	private active: { reason: CompactionReason; operation: Operation; done: Promise<CompactionResult> } | undefined;

	constructor(private readonly host: CompactionHost) {}

	get isCompacting(): boolean {
		return this.active !== undefined;
	}

	/** Cancels the running compaction (abort_compaction). Returns true when there was one. */
	abort(): boolean {
		if (!this.active) return false;
		this.active.operation.cancel();
		return true;
	}

	/**
	 * Compacts now. Manual and threshold compactions are "recoverable" (a failed plan is an
	 * error, nothing written); overflow recovery is load-bearing (a failed plan falls back to
	 * dropping the region). A manual compaction takes over from a running automatic one (which is
	 * cancelled); otherwise a call joins the compaction already running. Throws NOTHING_TO_COMPACT
	 * before any event when the conversation is too small (unless load-bearing). `parent` is the
	 * signal of the prompt it serves (automatic compactions); the session's abort reaches it either way.
	 */
	async compact(
		reason: CompactionReason,
		options: CompactionParameterInput = {},
		flags: CompactionFlags = {},
		parent?: AbortSignal,
	): Promise<CompactionResult> {
		const running = this.active;
		if (running) {
			if (reason !== "manual" || running.reason === "manual") return running.done;
			running.operation.cancel();
			await running.done.catch(() => undefined);
		}
		return this.start(reason, options, flags, parent);
	}

	private start(
		reason: CompactionReason,
		options: CompactionParameterInput,
		flags: CompactionFlags,
		parent: AbortSignal | undefined,
	): Promise<CompactionResult> {
		const model = this.host.models.model;
		if (!model) return Promise.reject(new Error("No model selected: compaction needs the session model."));
		const urgency: CompactionUrgency = reason === "overflow" ? "load_bearing" : "recoverable";
		const session = this.host.current.session;
		const preparation = prepareCompaction(
			session.getBranch(),
			{ options, settings: this.host.settings() },
			{ allowSmallRegion: urgency === "load_bearing" },
		);
		if (!preparation) return Promise.reject(new Error(NOTHING_TO_COMPACT));
		const operation = this.host.tree.start(parent);
		const leave = this.host.activity.enter("compaction");
		const done = this.run(reason, urgency, flags, model, session, preparation, operation.signal);
		const active = { reason, operation, done };
		this.active = active;
		flags.onStarted?.();
		const clear = () => {
			if (this.active === active) this.active = undefined;
			leave();
			operation.finish();
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
		this.host.events.emit(
			midTurn ? { type: "compaction_start", reason, midTurn } : { type: "compaction_start", reason },
		);
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
			this.host.conversation.rebuild();
			this.host.events.emit({ type: "compaction_end", reason, result: applied, aborted: false, willRetry });
			return applied;
		} catch (error) {
			const aborted = error instanceof CompactionCancelledError || signal.aborted;
			const message = aborted ? COMPACTION_CANCELLED : error instanceof Error ? error.message : String(error);
			const end: AgentSessionEvent = { type: "compaction_end", reason, result: null, aborted, willRetry: false };
			if (!aborted) end.errorMessage = message;
			if (!aborted && urgency === "load_bearing") end.unresolvedOverflow = true;
			this.host.events.emit(end);
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
