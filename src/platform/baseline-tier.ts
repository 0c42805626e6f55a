import { v8Module } from "./lazy-builtins.js";

/** Node options under which the process keeps V8's own tiering: the user chose a tier or no JIT. */
const TIERING_OPTIONS = /sparkplug|jitless|max-opt|max-lazy|always-/;

function tieringChosen(): boolean {
	return [...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((option) => TIERING_OPTIONS.test(option));
}

let enabled = false;

/**
 * From now on, V8 compiles each function it runs to baseline machine code (Sparkplug) on its first
 * call instead of interpreting its bytecode until it has run a few hundred times: `--always-sparkplug`
 * set at run time. Start-up does not pay for it (it would add ~25 ms of compiling to a cold start), so
 * the idle preload turns it on after the first response. A session's prompts otherwise run mostly in
 * the interpreter for their first dozens of prompts. Not in a process writing the compile cache
 * (its code cache must be made under V8's default flags), nor when Node was given tiering options.
 * Returns whether it is on.
 */
export function compileBaselineFromNowOn(): boolean {
	if (enabled) return true;
	if (process.env.ATOMIC_COMPILE_CACHE === "write" || tieringChosen()) return false;
	v8Module().setFlagsFromString("--always-sparkplug");
	enabled = true;
	return true;
}
