/** The modules pi extensions import, as Atomic provides them (src/extensions/compat). */
import { afterEach, describe, expect, it } from "vitest";
import { StringEnum } from "../../src/extensions/compat/pi-ai.js";
import {
	Box,
	Container,
	fuzzyFilter,
	Key,
	matchesKey,
	Spacer,
	Text,
	TruncatedText,
} from "../../src/extensions/compat/pi-tui.js";
import { getMarkdownTheme, keyHint, plainTheme } from "../../src/extensions/compat/plain-theme.js";
import { truncateToWidth, visibleWidth, wrapTextWithAnsi } from "../../src/extensions/compat/tui-text.js";
import { moduleWithStandIns, NotAvailableError, standIn } from "../../src/extensions/compat/unavailable.js";
import { piVirtualModules } from "../../src/extensions/compat/virtual-modules.js";
import { loadExtensions } from "../../src/extensions/index.js";
import { fakeHost, scratchDir } from "./helpers.js";

describe("stand-ins", () => {
	it("can be referenced, extended and read, and throw a named error when used", () => {
		const module = moduleWithStandIns("@earendil-works/pi-tui", { Text }, "there is no terminal to draw on");
		expect(module.Text).toBe(Text);
		expect("Editor" in module).toBe(true);
		expect(module.then).toBeUndefined();
		expect(module.default).toBeUndefined();
		const Editor = module.Editor as new () => object;
		expect(typeof Editor).toBe("function");
		expect(module.Editor).toBe(Editor);
		class VimEditor extends Editor {}
		expect(() => new VimEditor()).toThrow(
			new NotAvailableError('"Editor" from "@earendil-works/pi-tui"', "there is no terminal to draw on"),
		);
		const manager = standIn("SessionManager", "it belongs to pi's SDK", "@mariozechner/pi-coding-agent");
		expect(() => manager.list("/tmp")).toThrow(
			'"SessionManager.list" from "@mariozechner/pi-coding-agent" is not available in Atomic: it belongs to pi\'s SDK',
		);
		expect(typeof manager.prototype).toBe("object");
	});

	it("cover both of pi's package scopes", () => {
		const names = Object.keys(piVirtualModules());
		for (const name of ["pi-coding-agent", "pi-ai", "pi-ai/compat", "pi-tui", "pi-agent-core"]) {
			expect(names).toContain(`@earendil-works/${name}`);
			expect(names).toContain(`@mariozechner/${name}`);
		}
	});
});

describe("pi-tui", () => {
	it("measures, cuts and wraps text by terminal columns", () => {
		expect(visibleWidth("\x1b[31mred\x1b[0m")).toBe(3);
		expect(visibleWidth("日本")).toBe(4);
		expect(truncateToWidth("abcdefgh", 5)).toBe("ab...");
		expect(truncateToWidth("abc", 5, "...", true)).toBe("abc  ");
		expect(wrapTextWithAnsi("one two three four", 9)).toEqual(["one two", "three", "four"]);
		expect(wrapTextWithAnsi("abcdefghij", 4)).toEqual(["abcd", "efgh", "ij"]);
	});

	it("renders components as plain lines", () => {
		const box = new Box(1, 0);
		box.addChild(new Text("hello world", 0, 0));
		box.addChild(new Spacer(1));
		const container = new Container();
		container.addChild(box);
		container.addChild(new TruncatedText("a very long line indeed", 0, 0));
		expect(container.render(12)).toEqual([" hello ", " world ", "  ", "a very lo..."]);
		container.clear();
		expect(container.render(12)).toEqual([]);
	});

	it("names keys and matches their raw sequences", () => {
		expect(Key.enter).toBe("enter");
		expect(Key.ctrl("c")).toBe("ctrl+c");
		expect(matchesKey("\r", Key.enter)).toBe(true);
		expect(matchesKey("\x03", "ctrl+c")).toBe(true);
		expect(matchesKey("x", "escape")).toBe(false);
		expect(fuzzyFilter(["src/main.ts", "test/a.ts", "README"], "sma", (item) => item)).toEqual(["src/main.ts"]);
	});

	it("styles nothing: the plain theme returns text unchanged", () => {
		expect(plainTheme.fg("accent", plainTheme.bold("x"))).toBe("x");
		expect(getMarkdownTheme().heading?.("Title")).toBe("Title");
		expect(keyHint("ctrl+o", "expand")).toBe("ctrl+o to expand");
	});
});

describe("pi-ai", () => {
	it("builds a string enum schema providers accept", () => {
		expect(StringEnum(["a", "b"] as const, { description: "pick", default: "a" })).toEqual({
			type: "string",
			enum: ["a", "b"],
			description: "pick",
			default: "a",
		});
	});
});

describe("loading an extension that imports pi's packages", () => {
	const dirs: ReturnType<typeof scratchDir>[] = [];
	afterEach(() => {
		for (const dir of dirs.splice(0)) dir.remove();
	});

	it("resolves every package name to Atomic's modules", async () => {
		const agent = scratchDir();
		const project = scratchDir();
		dirs.push(agent, project);
		agent.write(
			"extensions/imports.ts",
			[
				'import { StringEnum } from "@earendil-works/pi-ai";',
				'import { getModel, Type } from "@mariozechner/pi-ai/compat";',
				'import { Container, Text } from "@mariozechner/pi-tui";',
				'import { truncateToWidth } from "@earendil-works/pi-tui";',
				'import { Type as T2 } from "@sinclair/typebox";',
				'import { Value } from "@sinclair/typebox/value";',
				'import { CONFIG_DIR_NAME, defineTool, truncateHead } from "@mariozechner/pi-coding-agent";',
				'import { isToolCallEventType } from "@earendil-works/pi-coding-agent";',
				'import { Agent } from "@mariozechner/pi-agent-core";',
				"export default function (pi) {",
				"  const schema = Type.Object({ mode: StringEnum(['a', 'b']), n: T2.Number() });",
				"  const box = new Container(); box.addChild(new Text('hi', 0, 0));",
				"  const facts = [Value.Check(schema, { mode: 'a', n: 1 }), box.render(10).join(''), truncateToWidth('abcdef', 4),",
				"    CONFIG_DIR_NAME, truncateHead('x').content, typeof getModel, typeof isToolCallEventType];",
				"  try { new Agent(); } catch (error) { facts.push(error.message); }",
				"  pi.registerTool(defineTool({ name: 'probe', description: facts.join(','), parameters: schema,",
				"    async execute() { return { content: [] }; } }));",
				"}",
			].join("\n"),
		);
		const errors: unknown[] = [];
		const runner = await loadExtensions({
			cwd: project.dir,
			agentDir: agent.dir,
			host: fakeHost(project.dir),
			onError: (error) => errors.push(error),
		});
		expect(errors).toEqual([]);
		expect(runner.tools().map((tool) => tool.description)).toEqual([
			'true,hi,a...,.atomic,x,function,function,"Agent" from "@mariozechner/pi-agent-core" is not available in Atomic: extensions get the agent through the ExtensionAPI, not pi\'s Agent class',
		]);
	});
});
