/** The texts a denied call's tool result carries (what the model reads). */

export const NO_CLIENT_TEXT = "No client to approve";

export function deniedByUser(message?: string): string {
	const extra = message?.trim();
	return extra ? `Denied by the user: ${extra}` : "Denied by the user";
}

export function deniedByRule(rule: string): string {
	return `Denied by rule ${rule}`;
}

export function deniedByMode(mode: string): string {
	return `Denied by approval mode ${mode}`;
}

export function timedOut(timeoutMs: number): string {
	return `No decision within ${timeoutMs / 1000} s: denied`;
}
