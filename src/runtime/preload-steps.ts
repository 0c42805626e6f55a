import { preloadArgumentValidator } from "../agent/validation.js";
import {
	canPreconnect,
	preconnectProvider,
	preloadHttpClient,
	preloadProvider,
	warmUpProvider,
} from "../llm/registry.js";
import { compileBaselineFromNowOn } from "../platform/baseline-tier.js";
import { toolPreloads } from "../tools/preload.js";
import type { AgentSession } from "./agent-session.js";
import { rehearseToolLoop } from "./rehearsal.js";

/** One piece of what a first prompt would load, loaded ahead by IdlePreload. */
export interface PreloadStep {
	/** What it loads, for diagnostics: `provider:anthropic-messages`, `http-client`, `edit:diff`. */
	name: string;
	run(): Promise<void> | void;
}

/** `--offline` or ATOMIC_OFFLINE: nothing goes over the network before a prompt asks for it. */
function offline(): boolean {
	const value = process.env.ATOMIC_OFFLINE;
	return value !== undefined && value !== "" && value !== "0" && value.toLowerCase() !== "false";
}

/**
 * What the first prompt of `session` would load on first use, in the order a tool loop needs it,
 * after turning on baseline compilation for the code that runs from then on (baseline-tier.ts): the provider module and SDK for the model's api, the connection to the model's server (unless
 * offline), Node's HTTP client, one canned request through the SDK (no network), the
 * tool-argument validator (when tools are offered), one tool loop through the agent loop with
 * canned replies (rehearsal.ts), then the libraries of the offered tools. Read
 * when called: a model or tool change later is picked up by the next call.
 */
export function preloadSteps(session: AgentSession): PreloadStep[] {
	const steps: PreloadStep[] = [{ name: "jit:baseline", run: () => void compileBaselineFromNowOn() }];
	const model = session.model;
	const api = model?.api;
	if (api) steps.push({ name: `provider:${api}`, run: () => preloadProvider(api) });
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
	steps.push({ name: "http-client", run: () => preloadHttpClient(api) });
	if (api) steps.push({ name: `warm-up:${api}`, run: () => warmUpProvider(api) });
	const tools = session.getState().tools;
	if (tools.length > 0) steps.push({ name: "argument-validator", run: preloadArgumentValidator });
	if (model) {
		const rehearsed = model;
		steps.push({
			name: `rehearsal:${rehearsed.api}`,
			run: async () => void (await rehearseToolLoop(rehearsed, session.thinkingLevel)),
		});
	}
	for (const preload of toolPreloads(tools, session.cwd)) steps.push({ name: preload.name, run: preload.load });
	return steps;
}
