// The modules extensions get for pi's package names (both the @earendil-works and the legacy
// @mariozechner scope), keyed by import specifier, for the loader's `virtualModules`. Each is the
// Atomic implementation with named stand-ins for the rest (see unavailable.ts).

import * as agentCore from "./pi-agent-core.js";
import * as piAi from "./pi-ai.js";
import * as codingAgent from "./pi-coding-agent.js";
import * as piTui from "./pi-tui.js";
import { moduleWithStandIns } from "./unavailable.js";

const SCOPES = ["@earendil-works", "@mariozechner"] as const;

const HEADLESS = "there is no terminal to draw on";
const PROVIDERS = "models and providers come from the catalog and models.json (see ctx.modelRegistry)";

/** Specifier (without scope) to [exports, why the rest is missing]. */
const MODULES: Record<string, [Record<string, unknown>, string]> = {
	"pi-coding-agent": [codingAgent, "it belongs to pi's SDK or terminal UI"],
	"pi-ai": [piAi, PROVIDERS],
	"pi-ai/compat": [piAi, PROVIDERS],
	"pi-ai/models": [piAi, PROVIDERS],
	"pi-ai/oauth": [{}, "there are no OAuth logins"],
	"pi-ai/providers/all": [piAi, PROVIDERS],
	"pi-tui": [piTui, HEADLESS],
	"pi-agent-core": [agentCore, "extensions get the agent through the ExtensionAPI, not pi's Agent class"],
};

/** Every pi package name an extension may import, mapped to what it gets. */
export function piVirtualModules(): Record<string, unknown> {
	const modules: Record<string, unknown> = {};
	for (const [name, [exports, reason]] of Object.entries(MODULES)) {
		for (const scope of SCOPES) {
			const specifier = `${scope}/${name}`;
			modules[specifier] = moduleWithStandIns(specifier, exports, reason);
		}
	}
	return modules;
}
