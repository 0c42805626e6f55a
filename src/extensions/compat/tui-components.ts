// pi-tui's display components, for renderers and widgets built by extensions. Atomic draws no
// terminal: a client shows what the RPC events carry. These keep their content and render it as
// plain lines when asked, so code that builds them (at load time, in commands, in renderers that
// a client never calls) works unchanged.
import { truncateToWidth, wrapTextWithAnsi } from "./tui-text.js";

/** pi-tui's component contract: lines for a width, and a cache reset. */
export interface Component {
	render(width: number): readonly string[];
	handleInput?(data: string): void;
	invalidate(): void;
}

type Style = (text: string) => string;

function padded(lines: readonly string[], paddingX: number, paddingY: number, style?: Style): string[] {
	const margin = " ".repeat(Math.max(0, paddingX));
	const body = lines.map((line) => margin + line + margin);
	const blank = Array.from({ length: Math.max(0, paddingY) }, () => "");
	const all = [...blank, ...body, ...blank];
	return style ? all.map(style) : all;
}

export class Text implements Component {
	constructor(
		private text = "",
		private paddingX = 1,
		private paddingY = 1,
		private customBgFn?: Style,
	) {}

	setText(text: string): void {
		this.text = text;
	}

	setCustomBgFn(customBgFn?: Style): void {
		this.customBgFn = customBgFn;
	}

	setPaddingX(paddingX: number): void {
		this.paddingX = paddingX;
	}

	invalidate(): void {
		// Nothing is cached.
	}

	render(width: number): readonly string[] {
		if (this.text.trim() === "") return [];
		const inner = Math.max(1, width - 2 * this.paddingX);
		return padded(wrapTextWithAnsi(this.text, inner), this.paddingX, this.paddingY, this.customBgFn);
	}
}

/** One line, cut to the width. */
export class TruncatedText implements Component {
	constructor(
		private text = "",
		private paddingX = 0,
		private paddingY = 0,
	) {}

	setText(text: string): void {
		this.text = text;
	}

	invalidate(): void {
		// Nothing is cached.
	}

	render(width: number): readonly string[] {
		const inner = Math.max(1, width - 2 * this.paddingX);
		const first = this.text.split("\n")[0] ?? "";
		return padded([truncateToWidth(first, inner)], this.paddingX, this.paddingY);
	}
}

export class Container implements Component {
	children: Component[] = [];

	addChild(component: Component): void {
		this.children.push(component);
	}

	removeChild(component: Component): void {
		this.children = this.children.filter((child) => child !== component);
	}

	clear(): void {
		this.children = [];
	}

	invalidate(): void {
		for (const child of this.children) child.invalidate();
	}

	render(width: number): readonly string[] {
		return this.children.flatMap((child) => [...child.render(width)]);
	}
}

/** A container with padding and a background style around its children. */
export class Box extends Container {
	constructor(
		private paddingX = 1,
		private paddingY = 1,
		private bgFn?: Style,
	) {
		super();
	}

	setBgFn(bgFn?: Style): void {
		this.bgFn = bgFn;
	}

	setPaddingX(paddingX: number): void {
		this.paddingX = paddingX;
	}

	override render(width: number): readonly string[] {
		const inner = Math.max(1, width - 2 * this.paddingX);
		return padded(super.render(inner), this.paddingX, this.paddingY, this.bgFn);
	}
}

export class Spacer implements Component {
	constructor(private lines = 1) {}

	setLines(lines: number): void {
		this.lines = lines;
	}

	invalidate(): void {
		// Nothing is cached.
	}

	render(_width: number): string[] {
		return Array.from({ length: Math.max(0, this.lines) }, () => "");
	}
}

/** Markdown shown as its source text, wrapped (no terminal styling here). */
export class Markdown implements Component {
	constructor(
		private text: string,
		private paddingX = 0,
		private paddingY = 0,
		..._styling: unknown[]
	) {}

	setText(text: string): void {
		this.text = text;
	}

	invalidate(): void {
		// Nothing is cached.
	}

	render(width: number): readonly string[] {
		const inner = Math.max(1, width - 2 * this.paddingX);
		return padded(wrapTextWithAnsi(this.text, inner), this.paddingX, this.paddingY);
	}
}

/** A horizontal rule the width of the view (pi's DynamicBorder). */
export class DynamicBorder implements Component {
	constructor(private readonly color: Style = (text) => text) {}

	invalidate(): void {
		// Nothing is cached.
	}

	render(width: number): readonly string[] {
		return [this.color("─".repeat(Math.max(1, width)))];
	}
}
