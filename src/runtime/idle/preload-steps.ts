import { preloadArgumentValidator } from "../../agent/validation.js";
import { canPreconnect, preconnectProvider, preloadHttpClient, preloadProvider } from "../../llm/registry.js";
import { toolPreloads } from "../../tools/preload.js";
import type { AgentSession } from "../facade/agent-session.js";
import { debugIdle, type IdleStep, IdleWork } from "./idle-work.js";

/** `--offline` or ATOMIC_OFFLINE: nothing goes over the network before a prompt asks for it. */
function offline(): boolean {
	const value = process.env.ATOMIC_OFFLINE;
	return value !== undefined && value !== "" && value !== "0" && value.toLowerCase() !== "false";
}

/**
 * What the first prompt of `session` would load on first use, in the order a tool loop needs it:
 * the provider module and SDK for the model's api, the HTTP client and the web classes its
 * requests build, the connection to the model's server (unless offline), the tool-argument
 * validator (when tools are offered), then the libraries of the offered tools. Read when called: a model or tool change later is picked up by the next call.
 */
export function preloadSteps(session: AgentSession): IdleStep[] {
	const steps: IdleStep[] = [];
	const model = session.model;
	const api = model?.api;
	if (api) steps.push({ name: `provider:${api}`, run: () => preloadProvider(api) });
	if (model) {
		const { baseUrl } = model;
		steps.push({ name: "http-client", run: () => preloadHttpClient(baseUrl) });
	}
	if (model && canPreconnect(model) && !offline()) {
		const wanted = model;
		steps.push({
			name: `connect:${new URL(wanted.baseUrl).origin}`,
			// Only to a server the prompt could go to: a provider without credentials fails before it.
			run: () =>
				session.availableModels().some((each) => each.provider === wanted.provider)
					? preconnectProvider(wanted)
					: undefined,
		});
	}
	const tools = session.getState().tools;
	if (tools.length > 0) steps.push({ name: "argument-validator", run: preloadArgumentValidator });
	for (const preload of toolPreloads(tools)) steps.push({ name: preload.name, run: preload.load });
	return steps;
}

/**
 * Loads `steps` while idle (IdleWork). With ATOMIC_DEBUG_IDLE=1, stderr reports each step, and
 * `preload: done` once the last one has run.
 */
export function startPreload(steps: readonly IdleStep[], isBusy: () => boolean): IdleWork {
	const debug = debugIdle();
	const preload = new IdleWork(steps, {
		isBusy,
		onStep: debug
			? ({ name, ms, error }) =>
					process.stderr.write(`preload: ${name} ${error ? `failed: ${error}` : "loaded"} (${ms.toFixed(1)} ms)\n`)
			: undefined,
	});
	if (debug) void preload.finished.then(() => preload.completed && process.stderr.write("preload: done\n"));
	preload.start();
	return preload;
}
