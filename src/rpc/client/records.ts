import type { RecordText } from "../framing.js";
import type { RpcEvent, RpcResponse } from "./types.js";

/** Any record read from the process: internal waits watch responses and events together. */
export type IncomingRecord = RpcEvent | RpcResponse;

/** One stdout record as data: a JSON object with a string `type`, or why it is not. */
export function parseRecord(record: RecordText): { ok: true; record: IncomingRecord } | { ok: false; error: Error } {
	if (!record.ok) return { ok: false, error: new Error(`Unreadable record from the RPC process: ${record.error}`) };
	const excerpt = record.text.slice(0, 200);
	let parsed: unknown;
	try {
		parsed = JSON.parse(record.text);
	} catch (error) {
		return { ok: false, error: new Error(`Malformed record from the RPC process: ${excerpt}`, { cause: error }) };
	}
	if (typeof parsed !== "object" || parsed === null || !("type" in parsed) || typeof parsed.type !== "string") {
		return { ok: false, error: new Error(`Record without a type from the RPC process: ${excerpt}`) };
	}
	// The shape past `type` is the server's contract (docs/rpc-schema.json); it is not re-validated here.
	return { ok: true, record: parsed as IncomingRecord };
}
