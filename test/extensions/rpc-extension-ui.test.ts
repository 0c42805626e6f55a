import { afterEach, describe, expect, it, vi } from "vitest";
import { type ExtensionUiRequest, RpcExtensionUi } from "../../src/rpc/extension-ui.js";

function bridge() {
	const records: ExtensionUiRequest[] = [];
	let counter = 0;
	const ui = new RpcExtensionUi(
		(record) => records.push(record),
		() => `uuid-${++counter}`,
	);
	return { ui, records };
}

describe("RpcExtensionUi requests", () => {
	it("writes the exact frame of every method, omitting undefined fields", () => {
		const { ui, records } = bridge();

		void ui.select("Allow dangerous command?", ["Allow", "Block"], { timeout: 10000 });
		void ui.confirm("Clear session?", "All messages will be lost.", { timeout: 5000 });
		void ui.input("Enter a value", "type something...");
		void ui.input("No placeholder");
		void ui.editor("Edit some text", "Line 1\nLine 2");
		void ui.editor("Empty editor");
		ui.notify("Command blocked by user", "warning");
		ui.notify("Plain");
		ui.setStatus("my-ext", "Turn 3 running...");
		ui.setStatus("my-ext");
		ui.setWidget("my-ext", ["--- My Widget ---", "Line 1"], "aboveEditor");
		ui.setWidget("my-ext");
		ui.setTitle("atomic - my project");
		ui.setEditorText("prefilled text");

		expect(records.map((record) => JSON.stringify(record))).toEqual([
			'{"type":"extension_ui_request","id":"uuid-1","method":"select","title":"Allow dangerous command?","options":["Allow","Block"],"timeout":10000}',
			'{"type":"extension_ui_request","id":"uuid-2","method":"confirm","title":"Clear session?","message":"All messages will be lost.","timeout":5000}',
			'{"type":"extension_ui_request","id":"uuid-3","method":"input","title":"Enter a value","placeholder":"type something..."}',
			'{"type":"extension_ui_request","id":"uuid-4","method":"input","title":"No placeholder"}',
			'{"type":"extension_ui_request","id":"uuid-5","method":"editor","title":"Edit some text","prefill":"Line 1\\nLine 2"}',
			'{"type":"extension_ui_request","id":"uuid-6","method":"editor","title":"Empty editor"}',
			'{"type":"extension_ui_request","id":"uuid-7","method":"notify","message":"Command blocked by user","notifyType":"warning"}',
			'{"type":"extension_ui_request","id":"uuid-8","method":"notify","message":"Plain"}',
			'{"type":"extension_ui_request","id":"uuid-9","method":"setStatus","statusKey":"my-ext","statusText":"Turn 3 running..."}',
			'{"type":"extension_ui_request","id":"uuid-10","method":"setStatus","statusKey":"my-ext"}',
			'{"type":"extension_ui_request","id":"uuid-11","method":"setWidget","widgetKey":"my-ext","widgetLines":["--- My Widget ---","Line 1"],"widgetPlacement":"aboveEditor"}',
			'{"type":"extension_ui_request","id":"uuid-12","method":"setWidget","widgetKey":"my-ext"}',
			'{"type":"extension_ui_request","id":"uuid-13","method":"setTitle","title":"atomic - my project"}',
			'{"type":"extension_ui_request","id":"uuid-14","method":"set_editor_text","text":"prefilled text"}',
		]);
		expect(ui.openDialogs).toBe(6);
	});

	it("sends timeout only when a positive one is given", () => {
		const { ui, records } = bridge();
		void ui.select("a", ["x"]);
		void ui.select("b", ["x"], { timeout: 0 });
		void ui.confirm("c", "m", {});
		expect(records.map((record) => "timeout" in record)).toEqual([false, false, false]);
	});

	it("uses random UUIDs by default", () => {
		const records: ExtensionUiRequest[] = [];
		const ui = new RpcExtensionUi((record) => records.push(record));
		ui.notify("a");
		ui.notify("b");
		expect(records[0]?.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
		expect(records[0]?.id).not.toBe(records[1]?.id);
	});
});

describe("RpcExtensionUi responses", () => {
	afterEach(() => {
		vi.useRealTimers();
	});

	it("maps value, confirmed and cancelled for each dialog kind", async () => {
		const { ui } = bridge();
		const select = ui.select("s", ["A", "B"]);
		const selectOutside = ui.select("s", ["A"]);
		const selectCancelled = ui.select("s", ["A"]);
		const input = ui.input("i");
		const inputWrong = ui.input("i");
		const editor = ui.editor("e");
		const confirmYes = ui.confirm("c", "m");
		const confirmNo = ui.confirm("c", "m");
		const confirmCancelled = ui.confirm("c", "m");
		const confirmWrong = ui.confirm("c", "m");
		const cancelledWins = ui.select("s", ["A"]);

		expect(ui.handleResponse({ id: "uuid-1", value: "B" })).toBe(true);
		ui.handleResponse({ id: "uuid-2", value: "not an option" });
		ui.handleResponse({ id: "uuid-3", cancelled: true });
		ui.handleResponse({ id: "uuid-4", value: "typed" });
		ui.handleResponse({ id: "uuid-5", confirmed: true });
		ui.handleResponse({ id: "uuid-6", value: "edited\ntext" });
		ui.handleResponse({ id: "uuid-7", confirmed: true });
		ui.handleResponse({ id: "uuid-8", confirmed: false });
		ui.handleResponse({ id: "uuid-9", cancelled: true });
		ui.handleResponse({ id: "uuid-10", value: "yes" });
		ui.handleResponse({ id: "uuid-11", value: "A", cancelled: true });

		expect(await select).toBe("B");
		expect(await selectOutside).toBe("not an option");
		expect(await selectCancelled).toBeUndefined();
		expect(await input).toBe("typed");
		expect(await inputWrong).toBeUndefined();
		expect(await editor).toBe("edited\ntext");
		expect(await confirmYes).toBe(true);
		expect(await confirmNo).toBe(false);
		expect(await confirmCancelled).toBe(false);
		expect(await confirmWrong).toBe(false);
		expect(await cancelledWins).toBeUndefined();
		expect(ui.openDialogs).toBe(0);
	});

	it("ignores unknown and repeated ids", async () => {
		const { ui } = bridge();
		const pending = ui.select("s", ["A"]);
		expect(ui.handleResponse({ id: "nobody", value: "A" })).toBe(false);
		expect(ui.openDialogs).toBe(1);
		expect(ui.handleResponse({ id: "uuid-1", value: "A" })).toBe(true);
		expect(ui.handleResponse({ id: "uuid-1", value: "B" })).toBe(false);
		expect(await pending).toBe("A");
	});

	it("keeps several dialogs open at once and resolves each by its own id", async () => {
		const { ui } = bridge();
		const first = ui.input("first");
		const second = ui.confirm("second", "m");
		const third = ui.select("third", ["x", "y"]);
		expect(ui.openDialogs).toBe(3);
		ui.handleResponse({ id: "uuid-3", value: "y" });
		ui.handleResponse({ id: "uuid-1", value: "one" });
		ui.handleResponse({ id: "uuid-2", confirmed: true });
		expect(await Promise.all([first, second, third])).toEqual(["one", true, "y"]);
	});

	it("resolves the default on timeout and ignores a late answer", async () => {
		vi.useFakeTimers();
		const { ui } = bridge();
		const select = ui.select("s", ["A"], { timeout: 1000 });
		const confirm = ui.confirm("c", "m", { timeout: 2000 });
		vi.advanceTimersByTime(999);
		expect(ui.openDialogs).toBe(2);
		vi.advanceTimersByTime(1);
		expect(await select).toBeUndefined();
		expect(ui.handleResponse({ id: "uuid-1", value: "A" })).toBe(false);
		vi.advanceTimersByTime(1000);
		expect(await confirm).toBe(false);
		expect(ui.openDialogs).toBe(0);
	});

	it("an answer before the timeout clears the timer", async () => {
		vi.useFakeTimers();
		const { ui } = bridge();
		const select = ui.select("s", ["A"], { timeout: 1000 });
		ui.handleResponse({ id: "uuid-1", value: "A" });
		expect(await select).toBe("A");
		expect(vi.getTimerCount()).toBe(0);
	});

	it("writes nothing for an already aborted signal and resolves at once with the default", async () => {
		const { ui, records } = bridge();
		const signal = AbortSignal.abort();
		expect(await ui.select("s", ["A"], { signal })).toBeUndefined();
		expect(await ui.confirm("c", "m", { signal })).toBe(false);
		expect(await ui.input("i", "p", { signal })).toBeUndefined();
		expect(records).toEqual([]);
		expect(ui.openDialogs).toBe(0);
	});

	it("resolves the default when the signal aborts later, and forgets the id", async () => {
		const { ui, records } = bridge();
		const controller = new AbortController();
		const confirm = ui.confirm("c", "m", { signal: controller.signal });
		expect(records).toHaveLength(1);
		controller.abort();
		expect(await confirm).toBe(false);
		expect(ui.handleResponse({ id: "uuid-1", confirmed: true })).toBe(false);
	});

	it("cancelAll resolves every open dialog with its default", async () => {
		const { ui } = bridge();
		const dialogs = [ui.select("s", ["A"]), ui.confirm("c", "m"), ui.input("i"), ui.editor("e", "text")];
		ui.cancelAll();
		expect(await Promise.all(dialogs)).toEqual([undefined, false, undefined, undefined]);
		expect(ui.openDialogs).toBe(0);
		expect(ui.handleResponse({ id: "uuid-2", confirmed: true })).toBe(false);
	});
});
