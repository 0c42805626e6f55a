import { describe, expect, it } from "vitest";
import { createUiContext, type ExtensionUiBackend, THEME_SWITCH_ERROR } from "../../src/extensions/index.js";

/** A backend that records every call. */
function recordingBackend(): ExtensionUiBackend & { calls: unknown[][] } {
	const calls: unknown[][] = [];
	return {
		calls,
		select: async (...args) => {
			calls.push(["select", ...args]);
			return "picked";
		},
		confirm: async (...args) => {
			calls.push(["confirm", ...args]);
			return true;
		},
		input: async (...args) => {
			calls.push(["input", ...args]);
			return "typed";
		},
		editor: async (...args) => {
			calls.push(["editor", ...args]);
			return "edited";
		},
		notify: (...args) => void calls.push(["notify", ...args]),
		setStatus: (...args) => void calls.push(["setStatus", ...args]),
		setWidget: (...args) => void calls.push(["setWidget", ...args]),
		setTitle: (...args) => void calls.push(["setTitle", ...args]),
		setEditorText: (...args) => void calls.push(["setEditorText", ...args]),
	};
}

describe("ctx.ui", () => {
	it("forwards dialogs and fire-and-forget methods to the backend", async () => {
		const backend = recordingBackend();
		const ui = createUiContext(backend);
		const signal = new AbortController().signal;

		expect(await ui.select("Pick", ["a", "b"], { timeout: 5, signal })).toBe("picked");
		expect(await ui.confirm("Sure?", "Really", { timeout: 7 })).toBe(true);
		expect(await ui.input("Name", "placeholder")).toBe("typed");
		expect(await ui.editor("Edit", "prefill")).toBe("edited");
		ui.notify("done", "warning");
		ui.setStatus("k", "text");
		ui.setStatus("k");
		ui.setWidget("w", ["one", "two"], { placement: "belowEditor" });
		ui.setWidget("w", undefined);
		ui.setTitle("title");
		ui.setEditorText("draft");
		ui.pasteToEditor("pasted");

		expect(backend.calls).toEqual([
			["select", "Pick", ["a", "b"], { timeout: 5, signal }],
			["confirm", "Sure?", "Really", { timeout: 7 }],
			["input", "Name", "placeholder", undefined],
			["editor", "Edit", "prefill"],
			["notify", "done", "warning"],
			["setStatus", "k", "text"],
			["setStatus", "k", undefined],
			["setWidget", "w", ["one", "two"], "belowEditor"],
			["setWidget", "w", undefined, undefined],
			["setTitle", "title"],
			["setEditorText", "draft"],
			["setEditorText", "pasted"],
		]);
	});

	it("ignores component-factory widgets and throws for non-string lines, sending nothing", () => {
		const backend = recordingBackend();
		const ui = createUiContext(backend);
		expect(ui.setWidget("w", () => ({ render: () => [] }))).toBeUndefined();
		expect(() => ui.setWidget("w", [1, 2] as unknown as string[])).toThrow(
			"setWidget expects an array of strings (or undefined to clear)",
		);
		expect(backend.calls).toEqual([]);
	});

	it("degrades the TUI-only methods as the RPC contract says", async () => {
		const backend = recordingBackend();
		const ui = createUiContext(backend);

		expect(await ui.custom(() => "component")).toBeUndefined();
		expect(ui.getEditorText()).toBe("");
		ui.setWorkingMessage("thinking");
		ui.setWorkingIndicator({ frames: [] });
		ui.setFooter(() => undefined);
		ui.setHeader(() => undefined);
		ui.setEditorComponent(undefined);
		ui.addAutocompleteProvider(() => undefined);
		expect(ui.getAllThemes()).toEqual([]);
		expect(ui.getTheme("dark")).toBeUndefined();
		expect(ui.setTheme("light")).toEqual({ success: false, error: THEME_SWITCH_ERROR });
		expect(THEME_SWITCH_ERROR).toBe("Theme switching not supported in RPC mode");
		expect(backend.calls).toEqual([]);
	});

	it("keeps tools-expanded state locally and mirrors it in getChatRenderSettings", () => {
		const backend = recordingBackend();
		const ui = createUiContext(backend);
		const other = createUiContext(backend);

		expect(ui.getToolsExpanded()).toBe(false);
		expect(ui.getChatRenderSettings()).toEqual({ toolOutputExpanded: false });
		ui.setToolsExpanded(true);
		expect(ui.getToolsExpanded()).toBe(true);
		expect(ui.getChatRenderSettings()).toEqual({ toolOutputExpanded: true });
		expect(other.getToolsExpanded()).toBe(false);
		ui.setToolsExpanded(false);
		expect(ui.getChatRenderSettings()).toEqual({ toolOutputExpanded: false });
		expect(backend.calls).toEqual([]);
	});
});
