import type { Model } from "./types.js";

const REDACTED = "***";
/** Query parameters that carry credentials in base URLs (`?key=` for Gemini, `?api-key=` for Azure). */
const SECRET_PARAMETER = /^(?:key|api[-_]?key|access[-_]?token|token|auth|secret|password|sig|signature)$/i;
/** `scheme://userinfo@` in text that is not a parseable URL. */
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)[^/@?#]*@/i;
/** Shorter secrets are not searched for in texts (they would match ordinary words). */
const MIN_SECRET_LENGTH = 3;

/** A model as it may leave the process: no `headers` (they may hold keys), credentials in `baseUrl` redacted. */
export type PublicModel = Omit<Model, "headers">;

export function publicModel(model: Model): PublicModel {
	const { headers: _headers, ...rest } = model;
	return { ...rest, baseUrl: redactUrl(model.baseUrl) };
}

/** `url` with its user name, password and secret-looking query values replaced by `***`. */
export function redactUrl(url: string): string {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch (error) {
		if (!(error instanceof TypeError)) throw error;
		return url.replace(USERINFO, `$1${REDACTED}@`);
	}
	let changed = false;
	if (parsed.username) {
		parsed.username = REDACTED;
		changed = true;
	}
	if (parsed.password) {
		parsed.password = REDACTED;
		changed = true;
	}
	for (const name of new Set(parsed.searchParams.keys())) {
		if (!SECRET_PARAMETER.test(name)) continue;
		parsed.searchParams.set(name, REDACTED);
		changed = true;
	}
	return changed ? parsed.toString() : url;
}

/**
 * `text` (an error message, a log line) with the credentials of `baseUrl` replaced by `***`: the
 * user name, the password (as written and decoded) and secret-looking query values. SDK and fetch
 * errors quote the request URL ("Request cannot be constructed from a URL that includes credentials").
 */
export function redactUrlSecrets(text: string, baseUrl: string): string {
	let parsed: URL;
	try {
		parsed = new URL(baseUrl);
	} catch (error) {
		if (!(error instanceof TypeError)) throw error;
		return text;
	}
	const secrets = new Set<string>();
	for (const value of [parsed.username, parsed.password]) {
		secrets.add(value);
		secrets.add(safeDecode(value));
	}
	for (const [name, value] of parsed.searchParams) {
		if (SECRET_PARAMETER.test(name)) {
			secrets.add(value);
			secrets.add(encodeURIComponent(value));
		}
	}
	let result = text;
	// Longest first, so that a secret containing another is replaced whole.
	for (const secret of [...secrets].sort((left, right) => right.length - left.length)) {
		if (secret.length >= MIN_SECRET_LENGTH) result = result.replaceAll(secret, REDACTED);
	}
	return result;
}

function safeDecode(value: string): string {
	try {
		return decodeURIComponent(value);
	} catch (error) {
		if (error instanceof URIError) return value;
		throw error;
	}
}
