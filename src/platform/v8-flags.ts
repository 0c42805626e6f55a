import { createRequire } from "node:module";

/**
 * V8 flags this process changed at run time. V8 stamps a code cache with a hash of its flags and
 * rejects a cache made under other ones, so code compiled from the CLI's code cache (written by
 * processes that changed no flag) must be compiled under the defaults: `underDefaultV8Flags`.
 *
 * The record lives on the global object under a registered symbol: the CLI's entry (which compiles
 * the chunks) and the chunk that changes a flag are bundled apart, and each may hold its own copy
 * of this module.
 */
interface ChangedFlag {
	value: string;
	defaultValue: string;
}

const RECORD = Symbol.for("atomic.changed-v8-flags");

/** node:v8, loaded only once a flag is changed (the CLI's entry imports this module at start-up). */
function setFlags(flags: string): void {
	const v8: typeof import("node:v8") = createRequire(import.meta.url)("node:v8");
	v8.setFlagsFromString(flags);
}

function changedFlags(): Map<string, ChangedFlag> {
	const holder: typeof globalThis & { [RECORD]?: Map<string, ChangedFlag> } = globalThis;
	holder[RECORD] ??= new Map();
	return holder[RECORD];
}

/** Sets `--name=value` for the rest of the process; `defaultValue` is what V8 starts with. */
export function changeV8Flag(name: string, value: string, defaultValue: string): void {
	setFlags(`--${name}=${value}`);
	changedFlags().set(name, { value, defaultValue });
}

/** Runs `work` with every flag `changeV8Flag` changed back at its default, then changes them again. */
export function underDefaultV8Flags<T>(work: () => T): T {
	const changed = changedFlags();
	if (changed.size === 0) return work();
	for (const [name, flag] of changed) setFlags(`--${name}=${flag.defaultValue}`);
	try {
		return work();
	} finally {
		for (const [name, flag] of changed) setFlags(`--${name}=${flag.value}`);
	}
}
