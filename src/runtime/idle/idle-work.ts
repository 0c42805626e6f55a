/** One piece of work done while the process is idle: a module loaded ahead, memory given back. */
export interface IdleStep {
	/** What it does, for diagnostics: `provider:anthropic-messages`, `edit:diff`, `release-memory`. */
	name: string;
	run(): Promise<void> | void;
}

/** Quiet time (no input, nothing running) before the next step starts. */
export const DEFAULT_IDLE_MS = 100;

export interface IdleStepReport {
	name: string;
	/** How long the step took, wall clock. */
	ms: number;
	/** Why it failed; the first use then loads (and reports) it itself. */
	error?: string;
}

export interface IdleWorkOptions {
	/** Default DEFAULT_IDLE_MS. */
	idleMs?: number;
	/** True while the session works (a prompt, a compaction): no step starts then. */
	isBusy(): boolean;
	/** Told after each step (diagnostics). */
	onStep?(report: IdleStepReport): void;
}

/**
 * Runs steps one at a time while the process has nothing else to do: a step starts only
 * once no input has arrived for `idleMs` and the session is not busy; input that arrives stops
 * further steps until it is quiet again. A step that is running is not interrupted (one module
 * import), so a command waits at most for that one step. Nothing here throws or keeps the process
 * alive.
 */
export class IdleWork {
	private readonly pending: IdleStep[];
	private readonly idleMs: number;
	private timer: NodeJS.Timeout | undefined;
	private running = false;
	private stopped = false;
	/** Bumped by every input: a step that finds it changed leaves the next one to the idle timer. */
	private activity = 0;
	private resolveFinished: () => void = () => undefined;
	/** Resolves once every step has run, or on stop. */
	readonly finished: Promise<void>;

	constructor(
		steps: readonly IdleStep[],
		private readonly options: IdleWorkOptions,
	) {
		this.pending = [...steps];
		this.idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
		this.finished = new Promise((resolve) => {
			this.resolveFinished = resolve;
		});
	}

	/** Steps left to run. */
	get remaining(): number {
		return this.pending.length;
	}

	/** Every step has run (not stopped before). */
	get completed(): boolean {
		return !this.stopped && this.pending.length === 0 && !this.running;
	}

	/** Starts waiting for quiet time (once start-up has answered). */
	start(): void {
		this.arm();
	}

	/** Input arrived: no further step starts until it has been quiet for `idleMs` again. */
	touch(): void {
		this.activity++;
		if (!this.running) this.arm();
	}

	stop(): void {
		this.stopped = true;
		this.pending.length = 0;
		clearTimeout(this.timer);
		this.resolveFinished();
	}

	private arm(): void {
		clearTimeout(this.timer);
		this.timer = undefined;
		if (this.stopped || this.pending.length === 0) {
			this.resolveFinished();
			return;
		}
		this.timer = setTimeout(() => this.next(this.activity), this.idleMs);
		this.timer.unref();
	}

	private next(seen: number): void {
		this.timer = undefined;
		if (this.stopped) return;
		if (seen !== this.activity || this.options.isBusy()) {
			this.arm();
			return;
		}
		const step = this.pending.shift();
		if (!step) {
			this.resolveFinished();
			return;
		}
		this.running = true;
		const started = performance.now();
		const report = (error?: string) => {
			this.running = false;
			this.options.onStep?.({ name: step.name, ms: performance.now() - started, ...(error ? { error } : {}) });
			if (this.stopped) return;
			// Input during the step: wait for quiet again. Otherwise the next step comes after the
			// I/O callbacks already due, so a command that arrived meanwhile is read first. The
			// immediate stays referenced: libuv does not leave its poll for an unreferenced one, so
			// the next step would wait for some unrelated timer or input (the first prompt, often).
			if (seen !== this.activity) this.arm();
			else setImmediate(() => this.next(seen));
		};
		Promise.resolve()
			.then(() => step.run())
			.then(
				() => report(),
				(error: unknown) => report(error instanceof Error ? error.message : String(error)),
			);
	}
}

/** ATOMIC_DEBUG_IDLE=1: what the process does while idle (preload steps, memory release) goes to stderr. */
export function debugIdle(): boolean {
	return process.env.ATOMIC_DEBUG_IDLE === "1";
}
