export interface SlashCommand {
	/** The word after `/`, e.g. `review` or `skill:lint`. */
	name: string;
	/** Everything after the name, trimmed; empty when there is nothing. */
	args: string;
}

/** Splits `/name rest...` at the first whitespace; undefined when the text is not a slash command. */
export function parseSlashCommand(text: string): SlashCommand | undefined {
	const match = /^\/(\S+)([\s\S]*)$/.exec(text);
	if (!match) return undefined;
	return { name: match[1] as string, args: (match[2] ?? "").trim() };
}
