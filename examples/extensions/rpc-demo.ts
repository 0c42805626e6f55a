// Uses every ctx.ui method, so a client can try its side of the extension UI protocol.
// Run with: atomic --mode rpc -e examples/extensions/rpc-demo.ts, then send
// {"type":"prompt","message":"/rpc-demo"}; examples/rpc-extension-ui.ts is a client that answers.
// The model's bash calls are confirmed too (a `select` that times out after 15 s and blocks).
import type { ExtensionAPI, ExtensionContext } from "../../src/extensions/index.js";

/** The terminal-only members: accepted in RPC mode, with the degraded answers the docs list. */
function terminalOnly(ctx: ExtensionContext): string {
	const ui = ctx.ui;
	ui.setWorkingMessage("thinking hard");
	ui.setWorkingIndicator({ frames: ["."] });
	ui.setWorkingVisible(false);
	ui.setHiddenThinkingLabel("(thinking)");
	ui.setFooter(undefined);
	ui.setHeader(undefined);
	ui.setEditorComponent(undefined);
	ui.addAutocompleteProvider((current: unknown) => current);
	const stopListening = ui.onTerminalInput(() => undefined);
	stopListening();
	ui.setToolsExpanded(true);
	const theme = ui.setTheme("dark");
	return [
		`editor text "${ui.getEditorText()}"`,
		`editor component ${String(ui.getEditorComponent())}`,
		`tools expanded ${ui.getToolsExpanded()}`,
		`render settings ${JSON.stringify(ui.getChatRenderSettings())}`,
		`themes ${ui.getAllThemes().length}, theme "dark" ${String(ui.getTheme("dark"))}`,
		`setTheme ${theme.success ? "ok" : theme.error}`,
		`styled "${ui.theme.bold(ui.theme.fg("accent", "plain"))}"`,
	].join("; ");
}

export default function (atomic: ExtensionAPI) {
	atomic.registerCommand("rpc-demo", {
		description: "Try every extension UI method",
		handler: async (_args, ctx) => {
			// Fire-and-forget: the client shows them, or ignores them.
			ctx.ui.setTitle("rpc-demo");
			ctx.ui.setStatus("rpc-demo", "running");
			ctx.ui.setWidget("rpc-demo", ["rpc-demo widget", `cwd: ${ctx.cwd}`], { placement: "aboveEditor" });
			ctx.ui.notify("The demo starts", "info");

			// Dialogs: each waits for the client's extension_ui_response.
			const color = await ctx.ui.select("Pick a color", ["red", "green", "blue"]);
			const sure = await ctx.ui.confirm("Continue?", `You picked ${color ?? "nothing"}.`);
			const name = await ctx.ui.input("Your name", "type a name", { timeout: 60_000 });
			const notes = await ctx.ui.editor("Notes", "first line\nsecond line");
			const custom = await ctx.ui.custom<string>(() => undefined);

			ctx.ui.setEditorText(`Hello ${name ?? "stranger"}`);
			ctx.ui.pasteToEditor(" (pasted)");
			ctx.ui.setWidget("rpc-demo", undefined);
			ctx.ui.setStatus("rpc-demo", undefined);
			const answers = `color=${color ?? "-"} sure=${sure} name=${name ?? "-"} notes=${JSON.stringify(notes ?? null)}`;
			ctx.ui.notify(`${answers}; custom=${String(custom)}; ${terminalOnly(ctx)}`, sure ? "info" : "warning");
		},
	});

	atomic.on("tool_call", async (event, ctx) => {
		if (event.toolName !== "bash") return;
		const choice = await ctx.ui.select(`Run \`${String(event.input.command)}\`?`, ["Allow", "Block"], {
			timeout: 15_000,
			signal: ctx.signal,
		});
		if (choice !== "Allow") return { block: true, reason: "Blocked in the rpc-demo dialog" };
	});
}
