import { type FileScan, FileScanner } from "./file-scan.js";
import { CANCELLED, type HelperData, type HelperReply, isHelperRequest, REPLIES } from "./scan-helpers.js";

/**
 * A scan helper's loop (scan-helpers.ts): it takes a job's pattern, then batches of files, and
 * answers each batch with the scans that found something. Batches of a cancelled job are skipped.
 */
export function runScanHelper(data: HelperData): void {
	let scanner: FileScanner | undefined;
	let job = 0;
	data.port.on("message", (message: unknown) => {
		if (!isHelperRequest(message)) return;
		if (message.type === "job") {
			job = message.job;
			scanner = new FileScanner(message.pattern, message.options);
			return;
		}
		const answer = (index: number, scan: FileScan | null, end: boolean) => {
			data.port.postMessage({ job: message.job, batch: message.batch, index, scan, end } satisfies HelperReply);
			Atomics.add(data.shared, REPLIES, 1);
			Atomics.notify(data.shared, REPLIES);
		};
		message.paths.forEach((path, index) => {
			if (!scanner || message.job !== job || Atomics.load(data.shared, CANCELLED) >= message.job) return;
			const scan = scanQuietly(scanner, path);
			if (scan && (scan.lines.length > 0 || scan.binaryMatched || scan.longLine || scan.unreadable)) {
				answer(index, scan, false);
			}
		});
		answer(message.paths.length, null, true);
	});
}

/**
 * A file found by the walk: one that vanished since is skipped; one that cannot be read is
 * reported (`unreadable`), as ripgrep reports it.
 */
export function scanQuietly(scanner: FileScanner, absolutePath: string): FileScan | undefined {
	try {
		return scanner.scan(absolutePath);
	} catch (error) {
		if (!(error instanceof Error && "code" in error && typeof error.code === "string")) throw error;
		if (error.code === "ENOENT") return undefined;
		return { lines: [], cut: false, binary: false, binaryMatched: false, longLine: false, unreadable: error.code };
	}
}
