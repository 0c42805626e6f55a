/** Below this depth a value is written as it is; deeper parts are replaced (see safeStringify). */
const MAX_DEPTH = 64;

/**
 * JSON.stringify for values that may not serialise: parts nested deeper than MAX_DEPTH levels,
 * circular references and bigints are replaced by a short text saying what was there, so the rest
 * of the record still goes out. Used only after a plain JSON.stringify failed.
 */
export function safeStringify(
	value: unknown,
	options: { replacer?: (this: unknown, key: string, value: unknown) => unknown; indent?: number } = {},
): string {
	const parents = new WeakMap<object, object | undefined>();
	const depths = new WeakMap<object, number>();
	const { replacer, indent } = options;
	const text = JSON.stringify(
		value,
		function (this: unknown, key: string, given: unknown): unknown {
			const current = replacer ? replacer.call(this, key, given) : given;
			if (typeof current === "bigint") return current.toString();
			if (typeof current !== "object" || current === null) return current;
			const holder = typeof this === "object" && this !== null ? this : undefined;
			const depth = holder ? (depths.get(holder) ?? 0) + 1 : 0;
			if (depth > MAX_DEPTH) return `[nested more than ${MAX_DEPTH} levels deep]`;
			for (let ancestor = holder; ancestor !== undefined; ancestor = parents.get(ancestor)) {
				if (ancestor === current) return "[circular reference]";
			}
			parents.set(current, holder);
			depths.set(current, depth);
			return current;
		},
		indent,
	);
	// Only `undefined` (or a function) at the top has no JSON text.
	return text ?? "null";
}
