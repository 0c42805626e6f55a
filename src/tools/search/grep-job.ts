import { basename } from "node:path";
import { resolveToolPath } from "../paths.js";
import { wholeNumber } from "../search-support.js";
import { type FileScan, FileScanner } from "./file-scan.js";
import { GrepOutput } from "./grep-output.js";
import { compileGlob, scanPattern, statPath } from "./patterns.js";
import { scanQuietly } from "./scan-helper-main.js";
import { BATCH_FILES, type HelperReply, ScanHelpers } from "./scan-helpers.js";
import type { GrepJobArguments, SearchSummary } from "./types.js";
import { walkTree } from "./walker.js";

/** An unreadable folder, reported as a file scan would report an unreadable file. */
function unreadableFolder(code: string): FileScan {
	return { lines: [], cut: false, binary: false, binaryMatched: false, longLine: false, unreadable: code };
}

interface Batch {
	paths: string[];
	absolute: string[];
	/** Per file, its scan (null: nothing to show), as far as known. */
	results: (FileScan | null)[];
	/** Files taken into the output so far. */
	taken: number;
}

/**
 * grep over a file or a tree. The tree is walked here and its files go in batches to the scan
 * helpers while they have room (scan-helpers.ts), else are scanned here; results are taken in
 * walk order, so the output is the same as a scan in one thread, and it stops at its limits.
 * `helpers` is the worker's own script, or undefined to scan in this thread only.
 */
export function grepJob(
	cwd: string,
	args: GrepJobArguments,
	defaultLimit: number,
	emit: (lines: string[]) => void,
	helperScript: string | undefined,
): SearchSummary {
	const pattern = scanPattern(args);
	const limit = wholeNumber(args.limit, defaultLimit, 1);
	const context = wholeNumber(args.context, 0, 0);
	const options = { context, maxMatches: limit + 1 };
	const searchPath = resolveToolPath(args.path ?? ".", cwd);
	const info = statPath(searchPath);
	let pending: string[] = [];
	const foldersCut: string[] = [];
	const output = new GrepOutput(limit, context, (line) => pending.push(line));
	const take = (displayPath: string, scan: FileScan | null | undefined) => {
		if (!scan) return;
		output.add(displayPath, scan);
		if (pending.length > 0) {
			emit(pending);
			pending = [];
		}
	};
	const scanner = new FileScanner(pattern, options);
	if (info.isFile()) take(basename(searchPath), scanner.scan(searchPath));
	else if (!info.isDirectory()) throw new Error(`Not a file or directory: ${searchPath}`);
	else {
		const helpers = helperScript === undefined ? undefined : ScanHelpers.of(helperScript);
		const useHelpers = helpers !== undefined && helpers.count > 0;
		if (useHelpers) helpers.startJob(pattern, options);
		const batches: (Batch | undefined)[] = [];
		let head = 0;
		/** Feeds the scanned files to the output in walk order, as far as they are known. */
		const flush = () => {
			for (let batch = batches[head]; batch && !output.done; batch = batches[head]) {
				while (batch.taken < batch.results.length && !output.done) {
					take(batch.paths[batch.taken] as string, batch.results[batch.taken]);
					batch.taken++;
				}
				if (batch.taken < batch.paths.length) return;
				batches[head] = undefined;
				head++;
			}
		};
		/** What a helper said: files before the one named (or all, at the end) had nothing. */
		const answer = (replies: HelperReply[]) => {
			for (const reply of replies) {
				const batch = batches[reply.batch];
				if (!batch) continue;
				const upTo = reply.end ? batch.paths.length : reply.index;
				while (batch.results.length < upTo) batch.results.push(null);
				if (!reply.end) batch.results.push(reply.scan);
			}
			flush();
		};
		const scanHere = (batch: Batch) => {
			for (const path of batch.absolute) {
				if (useHelpers) answer(helpers.collect());
				batch.results.push(output.done ? null : (scanQuietly(scanner, path) ?? null));
				flush();
			}
		};
		const newBatch = (): Batch => ({ paths: [], absolute: [], results: [], taken: 0 });
		let current = newBatch();
		const dispatch = () => {
			const batch = current;
			current = newBatch();
			batches.push(batch);
			if (!useHelpers || !helpers.offer(batches.length - 1, batch.absolute)) scanHere(batch);
		};
		const matchesGlob = args.glob ? compileGlob(args.glob) : undefined;
		const onUnreadable = (path: string, code: string) => output.add(path, unreadableFolder(code));
		const walk = { onFolderCut: (path: string) => foldersCut.push(path), onUnreadable, hidden: new Set(args.hidden) };
		walkTree(searchPath, walk, (entry) => {
			if (matchesGlob && !matchesGlob(entry.path)) return true;
			current.paths.push(entry.path);
			current.absolute.push(entry.absolutePath);
			if (current.paths.length >= BATCH_FILES) dispatch();
			return !output.done;
		});
		if (current.paths.length > 0 && !output.done) dispatch();
		while (useHelpers && !output.done && head < batches.length) {
			const replies = helpers.next();
			if (replies.length === 0) break;
			answer(replies);
		}
		if (useHelpers) helpers.endJob();
	}
	const summary: SearchSummary = { limitReached: output.matchLimitReached, linesTruncated: output.linesTruncated };
	if (output.binaryMatchCount > 0) {
		summary.binaryMatches = output.binaryMatches;
		summary.binaryMatchCount = output.binaryMatchCount;
	}
	if (output.longLines) summary.longLines = true;
	if (foldersCut.length > 0) summary.foldersCut = foldersCut.slice(0, 5);
	if (output.unreadableCount > 0) {
		summary.unreadable = output.unreadable;
		summary.unreadableCount = output.unreadableCount;
	}
	return summary;
}
