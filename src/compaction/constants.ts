/** The only compaction strategy context building applies (see session/context.ts). */
export { VERBATIM_COMPACTION_STRATEGY } from "../session/context.js";

/** Bumped whenever the planner prompt changes in a way that changes what a reply means. */
export const COMPACTION_PROMPT_VERSION = 3;

/** Fraction of the region's lines the planner is asked to keep. */
export const DEFAULT_COMPRESSION_RATIO = 0.5;

/** Newest context-visible messages kept out of the planner request. */
export const DEFAULT_PRESERVE_RECENT = 2;

/** A region shorter than this is not worth a planner call unless the context must shrink. */
export const MIN_COMPACTABLE_REGION_LINES = 20;

/** Automatic compaction starts when the context leaves fewer than this many tokens free. */
export const DEFAULT_RESERVE_TOKENS = 16_384;

/** The relevance focus when neither the caller, the settings nor the branch name one. */
export const DEFAULT_COMPACTION_QUERY = "the latest user request";
