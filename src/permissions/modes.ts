/** How tool calls are approved, from the loosest to the strictest. */
export const APPROVAL_MODES = ["auto", "ask", "read-only"] as const;

/**
 * `auto`: every call runs unless a deny rule matches. `ask`: read-only tools run, every other
 * call asks unless an allow rule matches. `read-only`: read-only tools run, every other call is
 * denied unless an allow rule matches.
 */
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

export function isApprovalMode(value: unknown): value is ApprovalMode {
	return typeof value === "string" && (APPROVAL_MODES as readonly string[]).includes(value);
}

/** Whether `mode` lets more calls run without asking than `than`. */
export function isLooser(mode: ApprovalMode, than: ApprovalMode): boolean {
	return APPROVAL_MODES.indexOf(mode) < APPROVAL_MODES.indexOf(than);
}

/** The stricter of two modes. */
export function stricterMode(a: ApprovalMode, b: ApprovalMode): ApprovalMode {
	return isLooser(a, b) ? b : a;
}
