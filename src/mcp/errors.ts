/** An error's message, with the code or message of its cause when the message alone says little. */
export function describeError(error: unknown): string {
	if (!(error instanceof Error)) return String(error);
	const cause = error.cause;
	if (cause instanceof Error) {
		const code = "code" in cause && typeof cause.code === "string" ? cause.code : undefined;
		const detail = code ?? cause.message;
		if (detail && !error.message.includes(detail)) return `${error.message} (${detail})`;
	}
	return error.message || error.name;
}

/** The last non-empty line of a text, at most 300 characters. */
export function lastLine(text: string): string | undefined {
	const lines = text.split("\n").map((line) => line.trim());
	const last = lines.filter(Boolean).at(-1);
	return last === undefined ? undefined : last.slice(0, 300);
}
