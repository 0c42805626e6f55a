import type { LineRange, NumberedRegion } from "./numbering.js";
import { type Reconstruction, reconstruct } from "./reconstruct.js";
import { validateDeletedRanges } from "./validate-ranges.js";

/** The whole region as one deletion, with protected lines cut out. */
export function freshRanges(region: NumberedRegion): LineRange[] {
	return validateDeletedRanges([{ start: 1, end: region.lines.length }], region.lines.length, region.protectedLines);
}

/**
 * The last resort when the context must shrink and no planner could help: no model call, the
 * region collapses to its protected spans and one marker per gap between them.
 */
export function freshReconstruction(region: NumberedRegion): Reconstruction {
	return reconstruct(region, freshRanges(region));
}
