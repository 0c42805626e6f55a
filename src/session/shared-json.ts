/**
 * The JSON of large messages, serialised once and spliced into every record that carries them.
 * A run's records carry the same message object several times (a prompt is in message_start,
 * message_end, agent_end and its session entry): for a message of many megabytes, serialising it
 * once instead of four times is most of the cost of those records.
 *
 * Only messages whose text, images and output add up to LARGE_MESSAGE_CHARS are kept, and only
 * until forgetSharedJson() (the RPC writer calls it after each agent_end) or until the kept JSON
 * passes MAX_KEPT_CHARS. A kept message is assumed unchanged while it is kept; its size is checked
 * on every use, so one that grew (a reply still streaming) is serialised again.
 */

/** Messages at least this large (estimated characters) are serialised once. */
export const LARGE_MESSAGE_CHARS = 256 * 1024;
/** Above this many kept characters, everything kept is forgotten. */
const MAX_KEPT_CHARS = 128 * 1024 * 1024;

/** One JSON text split where the large messages go, so that they need no copy. */
export type JsonParts = string[];

const kept = new Map<object, { json: string; size: number }>();
let keptChars = 0;

type Fields = Record<string, unknown>;

function isObject(value: unknown): value is Fields {
	return typeof value === "object" && value !== null;
}

/** The characters of a message's text, thinking, image data and command output. */
function messageSize(value: Fields): number {
	let size = typeof value.output === "string" ? value.output.length : 0;
	const content = value.content;
	if (typeof content === "string") return size + content.length;
	if (!Array.isArray(content)) return size;
	for (const block of content) {
		if (!isObject(block)) continue;
		if (typeof block.text === "string") size += block.text.length;
		if (typeof block.thinking === "string") size += block.thinking.length;
		if (typeof block.data === "string") size += block.data.length;
	}
	return size;
}

/** A large message's JSON: kept ones from the store, others serialised (and kept when `keep`). */
function largeMessageJson(value: unknown, keep: boolean): string | undefined {
	if (!isObject(value) || typeof value.role !== "string" || typeof value.toJSON === "function") return undefined;
	const size = messageSize(value);
	if (size < LARGE_MESSAGE_CHARS) return undefined;
	const known = kept.get(value);
	if (known && known.size === size) return known.json;
	const json = JSON.stringify(value);
	if (keep) {
		if (keptChars + json.length > MAX_KEPT_CHARS) forgetSharedJson();
		kept.set(value, { json, size });
		keptChars += json.length;
	}
	return json;
}

/** Whether `value` holds a large message as a field or as an element of an array field. */
function holdsLargeMessage(value: Fields): boolean {
	for (const key of Object.keys(value)) {
		const field = value[key];
		const items = Array.isArray(field) ? field : [field];
		for (const item of items) {
			if (isObject(item) && typeof item.role === "string" && messageSize(item) >= LARGE_MESSAGE_CHARS) return true;
		}
	}
	return false;
}

/** JSON.stringify leaves these out of objects and writes them as null in arrays. */
function isOmitted(value: unknown): boolean {
	return value === undefined || typeof value === "function" || typeof value === "symbol";
}

function hasToJson(value: unknown): boolean {
	return isObject(value) && typeof value.toJSON === "function";
}

/**
 * `JSON.stringify(value)` as parts, with the large messages it holds (as fields, or as elements of
 * array fields) reused from the store; joined, the parts are exactly JSON.stringify's text.
 * Undefined when `value` holds no large message (or a field with a toJSON method): the caller
 * serialises it as usual. Throws what JSON.stringify throws.
 */
export function stringifySharing(value: unknown, keep: boolean): JsonParts | undefined {
	if (!isObject(value) || Array.isArray(value) || hasToJson(value) || !holdsLargeMessage(value)) return undefined;
	const parts: JsonParts = [];
	let text = "{";
	const add = (item: unknown): void => {
		const shared = largeMessageJson(item, keep);
		if (shared === undefined) {
			text += JSON.stringify(item);
			return;
		}
		parts.push(text, shared);
		text = "";
	};
	let first = true;
	for (const key of Object.keys(value)) {
		const field = value[key];
		if (isOmitted(field)) continue;
		// What JSON.stringify does with a toJSON is left to it.
		if (hasToJson(field)) return undefined;
		text += `${first ? "" : ","}${JSON.stringify(key)}:`;
		first = false;
		if (!Array.isArray(field)) {
			add(field);
			continue;
		}
		text += "[";
		for (let index = 0; index < field.length; index++) {
			const item: unknown = field[index];
			if (index > 0) text += ",";
			if (isOmitted(item)) text += "null";
			else if (hasToJson(item)) return undefined;
			else add(item);
		}
		text += "]";
	}
	parts.push(`${text}}`);
	return parts;
}

/** Forgets every kept JSON text (the records that shared them are written). */
export function forgetSharedJson(): void {
	kept.clear();
	keptChars = 0;
}
