import type { AgentTool } from "../agent/types.js";
import { validateArguments } from "../agent/validation.js";
import { NotAvailableError } from "./compat/unavailable.js";
import type {
	CompactOptions,
	ExecuteToolOptions,
	ExtensionCommandContext,
	ExtensionContext,
	ExtensionToolContext,
	ReplacedSessionContext,
	SystemPromptOptions,
	WithSession,
} from "./context-types.js";
import { type ExtensionHost, errorText } from "./host.js";
import type { ModelRegistryView } from "./model-registry-view.js";
import type { ReadonlySessionManager } from "./session-view.js";
import type { ExtensionUiContext } from "./ui-types.js";

export interface ContextParts {
	host: ExtensionHost;
	ui: ExtensionUiContext;
	hasUI: boolean;
	signal: AbortSignal | undefined;
	sessionManager: ReadonlySessionManager;
	modelRegistry: ModelRegistryView;
	/** Reports a failure nobody else hears (a compaction without `onError`). Must not throw. */
	report(event: string, error: string): void;
	/** Replaces `getSystemPrompt` (before_agent_start reports the chained prompt). */
	systemPrompt?: () => string;
}

/** A `ctx` whose values are read from the host when used (the cwd and model follow the session). */
export function createExtensionContext(parts: ContextParts): ExtensionContext {
	const { host, ui, hasUI, signal, sessionManager, modelRegistry, report } = parts;
	return {
		ui,
		hasUI,
		signal,
		sessionManager,
		modelRegistry,
		scopedModels: [],
		get mode() {
			return host.mode;
		},
		get cwd() {
			return host.cwd;
		},
		get model() {
			return host.model;
		},
		get thinkingLevel() {
			return host.thinkingLevel;
		},
		isIdle: () => host.isIdle(),
		isProjectTrusted: () => true,
		abort: () => host.abort(),
		hasPendingMessages: () => host.hasPendingMessages(),
		getContextUsage: () => host.getContextUsage(),
		shutdown: () => host.shutdown(),
		getSystemPrompt: parts.systemPrompt ?? (() => host.systemPrompt),
		compact(options: CompactOptions = {}) {
			host.compact(options.customInstructions).then(
				(result) =>
					options.onComplete?.({
						summary: result.compactedText,
						firstKeptEntryId: result.firstKeptEntryId,
						tokensBefore: result.tokensBefore,
					}),
				(error: unknown) => {
					const failure = error instanceof Error ? error : new Error(String(error));
					if (options.onError) options.onError(failure);
					else report("compact", failure.message);
				},
			);
		},
	};
}

/** The first sentence of a description: a tool's line in the system prompt. */
export function firstSentence(text: string): string {
	const line = text.split("\n")[0] ?? "";
	const end = line.search(/\.(\s|$)/);
	return end > 0 ? line.slice(0, end + 1) : line;
}

type PromptHints = AgentTool & { promptSnippet?: string; promptGuidelines?: string[] };

export function systemPromptOptions(host: ExtensionHost): SystemPromptOptions {
	const tools: PromptHints[] = host.activeTools();
	return {
		cwd: host.cwd,
		selectedTools: tools.map((tool) => tool.name),
		toolSnippets: Object.fromEntries(
			tools.map((tool) => [tool.name, tool.promptSnippet ?? firstSentence(tool.description)]),
		),
		toolGuidelines: Object.fromEntries(
			tools.filter((tool) => tool.promptGuidelines).map((tool) => [tool.name, [...(tool.promptGuidelines ?? [])]]),
		),
	};
}

/** A command handler's `ctx`: the base context plus session control. */
export function createCommandContext(parts: ContextParts): ExtensionCommandContext {
	const { host } = parts;
	const control = host.control;
	const base = createExtensionContext(parts);
	const command: ExtensionCommandContext = Object.create(base);
	const after = async (outcome: { cancelled: boolean }, withSession: WithSession | undefined) => {
		if (outcome.cancelled || !withSession) return { cancelled: outcome.cancelled };
		const replaced: ReplacedSessionContext = Object.create(command);
		replaced.sendMessage = async (message, options) => host.sendMessage(message, options);
		replaced.sendUserMessage = async (content, options) => host.sendUserMessage(content, options);
		await withSession(replaced);
		return { cancelled: false };
	};
	Object.assign(command, {
		getSystemPromptOptions: () => systemPromptOptions(host),
		waitForIdle: () => control.waitForIdle(),
		newSession: async (options: { parentSession?: string; withSession?: WithSession } = {}) => {
			if ("setup" in options)
				throw new NotAvailableError("ctx.newSession({ setup })", "there is no writable session manager");
			return after(await control.newSession({ parentSession: options.parentSession }), options.withSession);
		},
		fork: async (entryId: string, options: { position?: "before" | "at"; withSession?: WithSession } = {}) => {
			if (options.position === "at") {
				if (entryId !== host.session.leafId)
					throw new NotAvailableError(
						'ctx.fork(entryId, { position: "at" }) away from the leaf',
						"it clones at the leaf only",
					);
				return after(await control.clone(), options.withSession);
			}
			return after(await control.fork(entryId), options.withSession);
		},
		navigateTree: async (targetId: string, options = {}) => ({
			cancelled: (await control.navigateTree(targetId, options)).cancelled,
		}),
		switchSession: async (path: string, options: { withSession?: WithSession } = {}) =>
			after(await control.switchSession(path), options.withSession),
		reload: () => control.reloadResources(),
	});
	return command;
}

/** A tool's `ctx`: the context plus the active tools and a way to call them. */
export function createToolContext(
	parts: ContextParts & { signal: AbortSignal },
	callerId: string,
): ExtensionToolContext {
	const base = createExtensionContext(parts);
	let nested = 0;
	const tool: ExtensionToolContext = Object.create(base);
	Object.defineProperty(tool, "tools", { get: () => parts.host.activeTools(), enumerable: true });
	tool.executeTool = async (name: string, args: unknown, options: ExecuteToolOptions = {}) => {
		const target = parts.host.activeTools().find((candidate) => candidate.name === name);
		const failure = (text: string) => ({ content: [{ type: "text" as const, text }], isError: true });
		if (!target) return failure(`Tool ${name} not found`);
		if (typeof args !== "object" || args === null || Array.isArray(args))
			return failure(`Tool ${name}: arguments must be an object`);
		const validation = await validateArguments(target.parameters, args as Record<string, unknown>);
		if (!validation.ok) return failure(validation.message);
		try {
			nested++;
			const result = await target.execute(
				`${callerId}/${nested}`,
				validation.value,
				options.signal ?? parts.signal,
				options.onUpdate ?? (() => undefined),
			);
			return { ...result, isError: result.isError === true };
		} catch (error) {
			return failure(errorText(error));
		}
	};
	return tool;
}
