/** An error's message, with the code or message of its cause when the message alone says little. */
export function describeError(error: unknown): string {
	if (!(error instanceof Error)) return String(error);
	// The SDK's HTTP transport errors carry the response status as `code`.
	const code = "code" in error ? error.code : undefined;
	if (typeof code === "number" && code >= 100 && code < 600 && !error.message.includes(String(code))) {
		return `${error.message} (HTTP ${code})`;
	}
	const cause = error.cause;
	if (cause instanceof Error) {
		const code = "code" in cause && typeof cause.code === "string" ? cause.code : undefined;
		const detail = code ?? cause.message;
		if (detail && !error.message.includes(detail)) return `${error.message} (${detail})`;
	}
	return error.message || error.name;
}

/**
 * The line of a server's stderr that best explains a failure: the last one that mentions an
 * error, else the last non-empty one (Node's closing `Node.js v20...` line skipped); at most 300
 * characters.
 */
export function telltaleLine(text: string): string | undefined {
	const lines = text
		.split("\n")
		.map((line) => line.trim())
		.filter((line) => line && !/^Node\.js v\d/.test(line));
	const line = lines.findLast((candidate) => /error|exception|fatal/i.test(candidate)) ?? lines.at(-1);
	return line?.slice(0, 300);
}
