/** Text helpers shared by the renderers: escaping, number and date formatting, safe JSON. */
import { redactUrl } from "../llm/model-redaction.js";
import { safeStringify } from "../llm/safe-json.js";

const HTML_ESCAPES: Record<string, string> = {
	"&": "&amp;",
	"<": "&lt;",
	">": "&gt;",
	'"': "&quot;",
	"'": "&#39;",
};

/** Escapes text for element content and for quoted attribute values alike. */
export function escapeHtml(text: string): string {
	if (!/[&<>"']/.test(text)) return text;
	return text.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character] ?? character);
}

/** `1234567` -> `1,234,567`, independent of the host locale. */
export function formatCount(value: number): string {
	const [whole = "0", fraction] = String(Math.round(value * 1e6) / 1e6).split(".");
	const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
	return fraction ? `${grouped}.${fraction}` : grouped;
}

/** Dollars with four decimals: costs of single turns are often fractions of a cent. */
export function formatCost(value: number): string {
	return `$${value.toFixed(4)}`;
}

const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** `2026-01-02T03:04:05.678Z` -> `2026-01-02 03:04:05 UTC`; anything unparsable is shown as given. */
export function formatTimestamp(value: string | number): string {
	// Entry timestamps are already ISO-8601 UTC: reformatting the text avoids a slow date parse.
	if (typeof value === "string" && ISO_UTC.test(value)) return `${value.slice(0, 10)} ${value.slice(11, 19)} UTC`;
	const date = new Date(value);
	if (Number.isNaN(date.getTime())) return String(value);
	return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** A finite number, or 0 for anything else (usage fields of foreign or damaged entries). */
export function finiteOrZero(value: unknown): number {
	return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A model object as the catalog defines it; its `headers` may carry credentials. */
function looksLikeModel(value: Record<string, unknown>): boolean {
	return typeof value.provider === "string" && (typeof value.api === "string" || typeof value.baseUrl === "string");
}

/**
 * JSON.stringify replacer that drops `headers` (and any `apiKey`) of model-like objects and
 * redacts the credentials of their `baseUrl`.
 */
export function withoutModelSecrets(this: unknown, _key: string, value: unknown): unknown {
	if (!isRecord(value) || !looksLikeModel(value)) return value;
	const baseUrl = typeof value.baseUrl === "string" ? redactUrl(value.baseUrl) : value.baseUrl;
	if (!("headers" in value) && !("apiKey" in value) && baseUrl === value.baseUrl) return value;
	const { headers: _headers, apiKey: _apiKey, ...rest } = value;
	return baseUrl === undefined ? rest : { ...rest, baseUrl };
}

/**
 * JSON of session data with model secrets removed. A replacer function makes stringifying several
 * times slower, so it only runs when the plain text holds a key it would remove.
 */
export function jsonWithoutSecrets(value: unknown, indent?: number): string {
	let plain: string | undefined;
	try {
		plain = JSON.stringify(value, null, indent);
	} catch (error) {
		// Circular or bigint details of an extension, values nested thousands of levels deep:
		// shown with those parts replaced rather than failing the whole export.
		if (!(error instanceof TypeError || error instanceof RangeError)) throw error;
		return safeStringify(value, { replacer: withoutModelSecrets, indent });
	}
	if (plain === undefined) return String(value);
	if (!plain.includes('"headers":') && !plain.includes('"apiKey":') && !plain.includes('"baseUrl":')) return plain;
	return JSON.stringify(value, withoutModelSecrets, indent);
}

/** Pretty JSON of session data for display, with model secrets removed. */
export function prettyJson(value: unknown): string {
	return jsonWithoutSecrets(value, 2);
}

/** The first line of a text, shortened for outlines and summaries. */
export function preview(text: string, limit = 80): string {
	const line = text.trim().split("\n", 1)[0] ?? "";
	return line.length > limit ? `${line.slice(0, limit - 1)}…` : line;
}
