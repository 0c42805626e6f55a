/**
 * Whether `host` is on an allow-list of host patterns: `example.com` allows that host exactly,
 * `*.example.com` its subdomains (not example.com itself), `*` every host. Case-insensitive; a
 * trailing dot and IPv6 brackets are ignored.
 */
export function hostAllowed(host: string, patterns: readonly string[]): boolean {
	const name = normalise(host);
	if (name === "") return false;
	return patterns.some((pattern) => {
		const wanted = normalise(pattern);
		if (wanted === "*") return true;
		if (wanted.startsWith("*.")) return name.endsWith(wanted.slice(1)) && name.length > wanted.length - 1;
		return name === wanted;
	});
}

function normalise(host: string): string {
	return host
		.trim()
		.toLowerCase()
		.replace(/^\[|\]$/g, "")
		.replace(/\.$/, "");
}
