/** Terminal colours for the demo; plain text when stdout is not a terminal. */
export interface Palette {
	bold(text: string): string;
	dim(text: string): string;
	tool(text: string): string;
	user(text: string): string;
}

function ansi(open: number, close: number): (text: string) => string {
	return (text) => `\u001b[${open}m${text}\u001b[${close}m`;
}

export function palette(enabled: boolean): Palette {
	if (!enabled) {
		const plain = (text: string) => text;
		return { bold: plain, dim: plain, tool: plain, user: plain };
	}
	return { bold: ansi(1, 22), dim: ansi(2, 22), tool: ansi(36, 39), user: ansi(32, 39) };
}
