// A `/status-demo` command that shows a status entry, a widget and a notification.
// Run with: atomic --mode rpc -e examples/extensions/status-widget.ts, then send
// {"type":"prompt","message":"/status-demo hello"}.
import type { ExtensionAPI } from "../../src/extensions/index.js";

export default function (atomic: ExtensionAPI) {
	atomic.registerCommand("status-demo", {
		description: "Show a status entry, a widget and a notification",
		handler: async (args, ctx) => {
			const model = ctx.model ? `${ctx.model.provider}/${ctx.model.id}` : "no model";
			ctx.ui.setStatus("status-demo", `${model} · ${ctx.isIdle() ? "idle" : "busy"}`);
			ctx.ui.setWidget("status-demo", ["--- status demo ---", `cwd: ${ctx.cwd}`, `args: ${args || "(none)"}`], {
				placement: "belowEditor",
			});
			ctx.ui.notify("Status demo updated", "info");
		},
	});
}
