// pi's Theme for a host without a terminal: every styling method returns the text unchanged, so
// renderers and widgets that style their output produce plain text.

type Styler = (text: string) => string;
const same: Styler = (text) => text;

/** The styling calls pi's Theme offers; colors are ignored. */
export class Theme {
	readonly name = "plain";
	fg(_color: string, text: string): string {
		return text;
	}
	bg(_color: string, text: string): string {
		return text;
	}
	style(text: string, _options?: unknown): string {
		return text;
	}
	bold(text: string): string {
		return text;
	}
	italic(text: string): string {
		return text;
	}
	underline(text: string): string {
		return text;
	}
	inverse(text: string): string {
		return text;
	}
	strikethrough(text: string): string {
		return text;
	}
	getFgAnsi(_color: string): string {
		return "";
	}
	getBgAnsi(_color: string): string {
		return "";
	}
}

export const plainTheme = new Theme();

/**
 * A theme object for pi-tui components (markdown, select lists, settings lists, editors): any
 * styling function it is asked for returns its text unchanged.
 */
function stylerTable(): Record<string, Styler> {
	const table: Record<string, Styler> = {};
	return new Proxy(table, { get: (_target, key) => (key === "then" ? undefined : same) });
}

export const getMarkdownTheme = stylerTable;
export const getSelectListTheme = stylerTable;
export const getSettingsListTheme = stylerTable;
export const getEditorTheme = stylerTable;

/** Key hints name the key as given: there are no user keybindings without a terminal. */
export function keyText(keybinding: string): string {
	return keybinding;
}

export function keyHint(keybinding: string, description: string): string {
	return `${keybinding} to ${description}`;
}

export function rawKeyHint(key: string, description: string): string {
	return `${key} to ${description}`;
}
