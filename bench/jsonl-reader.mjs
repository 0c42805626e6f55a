// Splits an agent's stdout into JSONL records on LF only (never a readline-style splitter, which also
// breaks on U+2028/U+2029 inside strings). One trailing CR is stripped.
import { performance } from "node:perf_hooks";

const messageUpdatePrefix = '{"type":"message_update"';
/** Lines longer than this are parsed on demand too (a 50 MiB prompt echoed in three events). */
const LAZY_LINE_CHARS = 1024 * 1024;
const typePrefix = /^\{"type":"([a-z_]+)"/;

/** One stdout line with its arrival time (ms, performance.now) and its size including the LF. */
export class JsonlRecord {
	constructor(index, time, line) {
		this.index = index;
		this.time = time;
		this.bytes = Buffer.byteLength(line) + 1;
		this.error = undefined;
		this.parsed = undefined;
		// Large message_update records (pi re-sends the whole partial message in each) and very long
		// lines are kept as text and parsed on demand, so the reader keeps up with the agent instead
		// of slowing its writes.
		if (line.startsWith(messageUpdatePrefix)) {
			this.type = "message_update";
			this.line = line;
			return;
		}
		const prefix = line.length > LAZY_LINE_CHARS ? typePrefix.exec(line) : null;
		if (prefix) {
			this.type = prefix[1];
			this.line = line;
			return;
		}
		this.line = undefined;
		this.parse(line);
		const type = this.parsed?.type;
		this.type = typeof type === "string" ? type : undefined;
	}

	parse(line) {
		try {
			this.parsed = JSON.parse(line);
		} catch (error) {
			this.error = error instanceof Error ? error.message : String(error);
			this.parsed = null;
		}
	}

	/** The record as an object (null when it was not valid JSON). */
	get object() {
		if (this.line !== undefined) {
			this.parse(this.line);
			this.line = undefined;
		}
		return this.parsed;
	}
}

/** Feeds stdout chunks in; calls `onRecord` for each complete line, in order. */
export function createJsonlReader(onRecord) {
	let pending = [];
	let count = 0;
	return (chunk) => {
		const time = performance.now();
		let start = 0;
		for (let newline = chunk.indexOf(10, start); newline !== -1; newline = chunk.indexOf(10, start)) {
			pending.push(chunk.subarray(start, newline));
			let line = (pending.length === 1 ? pending[0] : Buffer.concat(pending)).toString("utf8");
			pending = [];
			if (line.endsWith("\r")) line = line.slice(0, -1);
			onRecord(new JsonlRecord(count++, time, line));
			start = newline + 1;
		}
		if (start < chunk.length) pending.push(chunk.subarray(start));
	};
}
