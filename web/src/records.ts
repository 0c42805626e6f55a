/** A record of the protocol as the page reads it: an object whose fields are checked where used. */
export type Rec = Record<string, unknown>;

export function isRec(value: unknown): value is Rec {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function str(value: unknown, fallback = ""): string {
	return typeof value === "string" ? value : fallback;
}

export function num(value: unknown): number | undefined {
	return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

export function recs(value: unknown): Rec[] {
	return Array.isArray(value) ? value.filter(isRec) : [];
}
