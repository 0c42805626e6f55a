/**
 * The deepest nesting of tool-call arguments accepted from a model. Deeper values cannot be
 * serialised, cloned or validated safely (those are recursive: a few thousand levels overflow the
 * stack), and no tool needs them; they become an error the model is told about.
 */
export const MAX_ARGUMENT_DEPTH = 100;

/**
 * Whether `value` nests objects and arrays more than `limit` levels deep (`{}` is one level).
 * Iterative, so any depth is measured without recursion; it stops as soon as the limit is passed.
 */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
	const stack: { value: unknown; depth: number }[] = [{ value, depth: 1 }];
	for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
		if (typeof item.value !== "object" || item.value === null) continue;
		if (item.depth > limit) return true;
		const children: unknown[] = Array.isArray(item.value) ? item.value : Object.values(item.value);
		for (const child of children) {
			if (typeof child === "object" && child !== null) stack.push({ value: child, depth: item.depth + 1 });
		}
	}
	return false;
}

/** The arguments that stand for a too-deep value: validation reports the problem to the model. */
export function tooDeepArguments(raw: string): Record<string, unknown> {
	return { __raw: raw, __parseError: `the arguments are nested more than ${MAX_ARGUMENT_DEPTH} levels deep` };
}
