/**
 * One piece of abortable work: a prompt's run, a compaction, a branch summary. Its signal fires
 * when the session aborts or when the work itself is cancelled (abort_compaction); `finish()`
 * must be called exactly once when it has stopped, however it ended.
 */
export interface Operation {
	readonly signal: AbortSignal;
	/** Cancels this operation only. */
	cancel(): void;
	/** Marks the operation stopped; `abortAll()` waits for this. */
	finish(): void;
}

interface OpenOperation extends Operation {
	readonly root: AbortController;
	readonly stopped: Promise<void>;
}

/**
 * The root of the session's cancellation: every abortable operation starts here (or under a
 * parent operation's signal), so one `abortAll()` reaches the provider request, the tools, the
 * child processes, a compaction, a branch summary and the retry delay of whatever is running,
 * and resolves only once each of them has stopped. Operations started after an abort start
 * afresh.
 */
export class AbortTree {
	private root = new AbortController();
	private readonly open = new Set<OpenOperation>();
	private readonly listeners = new Set<() => void>();

	/**
	 * Starts an operation under the root and, when given, under `parent` too. Its signal follows
	 * them through listeners removed by `finish()`: AbortSignal.any would leave an entry per
	 * operation in the long-lived root signal (Node 20 never prunes them).
	 */
	start(parent?: AbortSignal): Operation {
		const own = new AbortController();
		const sources = parent ? [this.root.signal, parent] : [this.root.signal];
		const follow = (event: Event) => {
			const source = event.target instanceof AbortSignal ? event.target : undefined;
			own.abort(source?.reason);
		};
		for (const source of sources) {
			if (own.signal.aborted) break;
			if (source.aborted) own.abort(source.reason);
			else source.addEventListener("abort", follow, { once: true });
		}
		let markStopped: () => void = () => undefined;
		const stopped = new Promise<void>((resolve) => {
			markStopped = resolve;
		});
		const operation: OpenOperation = {
			signal: own.signal,
			root: this.root,
			stopped,
			cancel: () => own.abort(),
			finish: () => {
				for (const source of sources) source.removeEventListener("abort", follow);
				this.open.delete(operation);
				markStopped();
			},
		};
		this.open.add(operation);
		return operation;
	}

	/** Calls `listener` on every abortAll() (e.g. to resolve open dialogs); returns the unsubscriber. */
	onAbort(listener: () => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** Aborts every open operation and resolves once all of them have finished. */
	async abortAll(): Promise<void> {
		const root = this.root;
		this.root = new AbortController();
		root.abort();
		for (const listener of this.listeners) listener();
		const reached = [...this.open].filter((operation) => operation.root === root);
		await Promise.all(reached.map((operation) => operation.stopped));
	}

	/** Whether any operation is open (for tests and shutdown). */
	get busy(): boolean {
		return this.open.size > 0;
	}
}
