// Refuses every fork and clone of the session, and says so.
import type { ExtensionAPI } from "../../src/extensions/index.js";

export default function (atomic: ExtensionAPI) {
	atomic.on("session_before_fork", (_event, ctx) => {
		ctx.ui.notify("Forking is disabled in this project (no-forks extension)", "warning");
		return { cancel: true };
	});
}
