import { availableParallelism } from "node:os";
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import type { FileScan, ScanOptions, ScanPattern } from "./file-scan.js";

/**
 * Threads that scan files for a search worker, so that a grep uses every core as ripgrep does:
 * the search worker walks the tree and hands batches of files to its helpers while they have
 * fewer than HELPER_QUEUE batches waiting, scanning the others itself; results are taken back in
 * walk order. Most of a scan is system calls (open, read, close), which run in parallel.
 */

/** Files per batch: small enough that a search that stops at its limit wastes little. */
export const BATCH_FILES = 32;
/** Batches a helper may have waiting: one running, one ready. */
const HELPER_QUEUE = 2;
/** At most this many helpers, whatever the machine. */
const MAX_HELPERS = 3;

/** What the search worker posts to a helper. */
export type HelperRequest =
	| { type: "job"; job: number; pattern: ScanPattern; options: ScanOptions }
	| { type: "batch"; job: number; batch: number; paths: string[] };

/**
 * A helper's answer about a batch: the scan of its file `index`, which has something to say (the
 * files before it that no answer named had nothing), or, with `end`, that the batch is done (the
 * files after the last one named had nothing). Files are answered as they are scanned, so what a
 * batch found so far is not held up by one slow file.
 */
export interface HelperReply {
	job: number;
	batch: number;
	index: number;
	scan: FileScan | null;
	end: boolean;
}

/** Slots of the helpers' shared counters. */
export const CANCELLED = 0;
export const REPLIES = 1;

/** The data a helper is started with (workerData). */
export interface HelperData {
	role: "scan-helper";
	port: MessagePort;
	/** [CANCELLED]: the last job cancelled (its batches are skipped); [REPLIES]: answers posted. */
	shared: Int32Array;
}

interface Helper {
	worker: Worker;
	port: MessagePort;
	waiting: number;
}

export function isHelperRequest(value: unknown): value is HelperRequest {
	if (typeof value !== "object" || value === null || !("type" in value) || !("job" in value)) return false;
	if (value.type === "job") return "pattern" in value && "options" in value;
	return value.type === "batch" && "batch" in value && "paths" in value && Array.isArray(value.paths);
}

export function isHelperReply(value: unknown): value is HelperReply {
	if (typeof value !== "object" || value === null) return false;
	return "job" in value && "batch" in value && "index" in value && "scan" in value && "end" in value;
}

/** The helpers of one search worker, started once and kept with it. */
export class ScanHelpers {
	private readonly helpers: Helper[];
	private readonly shared = new Int32Array(new SharedArrayBuffer(8));
	private job = 0;

	private constructor(file: string) {
		const count = Math.min(MAX_HELPERS, Math.max(0, availableParallelism() - 1));
		this.helpers = Array.from({ length: count }, () => {
			const channel = new MessageChannel();
			const data: HelperData = { role: "scan-helper", port: channel.port2, shared: this.shared };
			const worker = new Worker(file, { workerData: data, transferList: [channel.port2], stdout: true });
			worker.stdout.on("data", (chunk: Buffer) => process.stderr.write(chunk));
			worker.unref();
			channel.port1.unref();
			return { worker, port: channel.port1, waiting: 0 };
		});
	}

	private static started: ScanHelpers | undefined;

	/** The helpers of this search worker (`file` is its own script), started on first use. */
	static of(file: string): ScanHelpers {
		ScanHelpers.started ??= new ScanHelpers(file);
		return ScanHelpers.started;
	}

	get count(): number {
		return this.helpers.length;
	}

	/** Starts a job: helpers forget the last one's batches and scan with this pattern. */
	startJob(pattern: ScanPattern, options: ScanOptions): number {
		Atomics.store(this.shared, CANCELLED, this.job);
		this.job++;
		for (const helper of this.helpers) {
			helper.waiting = 0;
			// Answers to an earlier job's batches are dropped.
			while (receiveMessageOnPort(helper.port));
			helper.port.postMessage({ type: "job", job: this.job, pattern, options } satisfies HelperRequest);
		}
		return this.job;
	}

	/** Hands a batch to a helper with room for it; false when all are busy. */
	offer(batch: number, paths: string[]): boolean {
		const helper = this.helpers.find((each) => each.waiting < HELPER_QUEUE);
		if (!helper) return false;
		helper.waiting++;
		helper.port.postMessage({ type: "batch", job: this.job, batch, paths } satisfies HelperRequest);
		return true;
	}

	/** The answers that have arrived, without waiting. */
	collect(): HelperReply[] {
		const replies: HelperReply[] = [];
		for (const helper of this.helpers) {
			for (let received = receiveMessageOnPort(helper.port); received; received = receiveMessageOnPort(helper.port)) {
				const reply: unknown = received.message;
				if (!isHelperReply(reply) || reply.job !== this.job) continue;
				if (reply.end) helper.waiting--;
				replies.push(reply);
			}
		}
		return replies;
	}

	/**
	 * The next answers, waiting for one when none has arrived (the search worker blocks: it has
	 * nothing else to do). Empty when no helper has a batch.
	 */
	next(): HelperReply[] {
		for (;;) {
			const seen = Atomics.load(this.shared, REPLIES);
			const ready = this.collect();
			if (ready.length > 0 || this.helpers.every((helper) => helper.waiting === 0)) return ready;
			// Woken by a helper's answer (it counts them); the timeout only guards against a lost wake.
			Atomics.wait(this.shared, REPLIES, seen, 50);
		}
	}

	/** The job ended (its limit, or done): helpers skip what is left of it. */
	endJob(): void {
		Atomics.store(this.shared, CANCELLED, this.job);
	}
}
