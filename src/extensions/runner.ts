import type { AgentMessage } from "../agent/messages.js";
import type { AgentTool, AgentToolResult, ToolCallBlock, ToolCallContext, ToolResultOverride } from "../agent/types.js";
import type { ExtensionCommandInfo } from "../resources/commands.js";
import { parseSlashCommand } from "../resources/slash-command.js";
import { type SourceInfo, sourceInfoFor } from "../resources/source-info.js";
import { type AgentStartOutcome, type AgentStartTrigger, beforeAgentStartHook, contextHook } from "./agent-start.js";
import { createExtensionApi } from "./api.js";
import {
	type ContextParts,
	createCommandContext,
	createExtensionContext,
	createToolContext,
	systemPromptOptions,
} from "./context.js";
import type { Dispatch, Invocation, InvokeOptions } from "./dispatch.js";
import { createEventBus } from "./event-bus.js";
import type {
	ObservedEvent,
	SessionBeforeForkEvent,
	SessionBeforeSwitchEvent,
	SessionBeforeTreeEvent,
	SessionShutdownEvent,
	TurnEndEvent,
	TurnStartEvent,
	UserBashResult,
} from "./events.js";
import {
	cancellableHook,
	type InputOutcome,
	type InputRequest,
	inputHook,
	resourcesHook,
	toolCallHook,
	toolResultHook,
	userBashHook,
} from "./hook-dispatch.js";
import { type ExtensionErrorListener, type ExtensionHost, errorText } from "./host.js";
import { createModelRegistryView } from "./model-registry-view.js";
import { commandTable, type ExtensionRecord, newExtensionRecord, type StoredHandler } from "./registry.js";
import { createSessionView } from "./session-view.js";
import { toAgentTool } from "./tool-adapter.js";
import { activeToolFilter, toolInfos } from "./tool-catalog.js";
import type { EventBus, ExtensionContext, ExtensionFactory, ToolDefinition } from "./types.js";
import { createUiContext, headlessUiBackend } from "./ui-context.js";
import type { ExtensionUiBackend, ExtensionUiContext } from "./ui-types.js";

export type { InputOutcome, InputRequest } from "./hook-dispatch.js";

export interface ExtensionRunnerOptions {
	host: ExtensionHost;
	/** The UI host (RPC). Omitted: no UI, `ctx.hasUI` is false and dialogs answer their default. */
	ui?: ExtensionUiBackend;
	/** Receives every load, hook and command failure. Must not throw. */
	onError: ExtensionErrorListener;
	/** How long one factory may take before it is given up (default EXTENSION_LOAD_TIMEOUT_MS). */
	loadTimeoutMs?: number;
}

/**
 * The loaded extensions: their commands, tools and hooks. No method throws; handler failures go
 * to `onError` (an `extension_error`) and the hook then acts as if that handler returned nothing,
 * except `tool_call`, which blocks the call (fail closed). Handlers run one at a time in load
 * order, then registration order.
 */
/**
 * How long an extension's factory may take. One that never settles would otherwise hold back
 * every command that waits for the extensions (prompts, get_commands) for good.
 */
export const EXTENSION_LOAD_TIMEOUT_MS = 10_000;

/** Awaits `work`; rejects with `message` once `ms` have passed without it settling. */
async function settleWithin<T>(work: T | Promise<T>, ms: number, message: string): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<never>((_resolve, reject) => {
		timer = setTimeout(() => reject(new Error(message)), ms);
	});
	try {
		return await Promise.race([work, timeout]);
	} finally {
		clearTimeout(timer);
	}
}

export class ExtensionRunner {
	readonly ui: ExtensionUiContext;
	readonly hasUI: boolean;
	private readonly host: ExtensionHost;
	private readonly onError: ExtensionErrorListener;
	private readonly records: ExtensionRecord[] = [];
	private readonly wrappedTools = new WeakMap<ToolDefinition, AgentTool>();
	private readonly events: EventBus;
	private readonly views: Pick<ContextParts, "sessionManager" | "modelRegistry">;
	private readonly activeTools = activeToolFilter();
	private turnIndex = 0;
	private loading = true;
	readonly dispatch: Dispatch;
	private readonly loadTimeoutMs: number;

	constructor(options: ExtensionRunnerOptions) {
		this.loadTimeoutMs = options.loadTimeoutMs ?? EXTENSION_LOAD_TIMEOUT_MS;
		this.host = options.host;
		this.onError = options.onError;
		this.hasUI = options.ui !== undefined;
		this.ui = createUiContext(options.ui ?? headlessUiBackend, (phase, kind, title) => {
			void this.emit({
				type: phase === "start" ? "ui_prompt_start" : "ui_prompt_end",
				reason: "ui_prompt",
				kind,
				title,
			});
		});
		this.events = createEventBus((channel, error) =>
			this.onError({ extensionPath: `events:${channel}`, event: "events", error: errorText(error) }),
		);
		this.views = {
			sessionManager: createSessionView(() => this.host.session),
			modelRegistry: createModelRegistryView(() => this.host.modelRegistry),
		};
		this.dispatch = {
			handlers: (event) => this.handlersOf(event),
			invoke: (record, handler, event, invokeOptions) => this.invoke(record, handler, event, invokeOptions),
			read: (record, event, reader) => this.read(record, event, reader),
			report: (error) => this.onError(error),
		};
	}

	/** The files of the extensions that loaded, in load order. */
	get extensionPaths(): string[] {
		return this.records.map((record) => record.path);
	}

	/** Marks the end of loading: from now on, tools registered later refresh the session's list. */
	finishLoading(): void {
		this.loading = false;
	}

	/**
	 * Runs one extension's factory; on a throw its registrations are dropped and false returned.
	 * `sourceInfo` says how the file was found (default: a command-line path).
	 */
	async addExtension(
		path: string,
		factory: ExtensionFactory,
		sourceInfo: SourceInfo = sourceInfoFor(path, "path"),
	): Promise<boolean> {
		const record = newExtensionRecord(path, sourceInfo);
		const api = createExtensionApi(record, {
			host: this.host,
			report: this.onError,
			toolOwner: (name, except) => this.records.find((other) => other !== except && other.tools.has(name))?.path,
			events: this.events,
			activeToolNames: () => this.host.activeTools().map((tool) => tool.name),
			setActiveTools: (names) => {
				this.activeTools.set(names, this.host.allTools());
				this.host.refreshTools();
			},
			allTools: () => toolInfos(this.host.allTools(), this.records),
			toolRegistered: (name) => {
				this.activeTools.activate(name);
				if (!this.loading) this.host.refreshTools();
			},
		});
		try {
			await settleWithin(
				factory(api),
				this.loadTimeoutMs,
				`The extension did not finish loading within ${this.loadTimeoutMs} ms; it is not loaded`,
			);
		} catch (error) {
			this.onError({ extensionPath: path, event: "load", error: errorText(error) });
			return false;
		}
		this.records.push(record);
		return true;
	}

	// ---------------------------------------------------------------- commands and tools

	/** Registered commands under their invocation names, in load order. */
	commands(): ExtensionCommandInfo[] {
		return commandTable(this.records).map((entry) => {
			const info: ExtensionCommandInfo = { name: entry.name, path: entry.extensionPath, sourceInfo: entry.sourceInfo };
			if (entry.command.description !== undefined) info.description = entry.command.description;
			return info;
		});
	}

	/** Whether `text` is `/name ...` for a registered command. */
	isCommand(text: string): boolean {
		const parsed = parseSlashCommand(text);
		return parsed !== undefined && commandTable(this.records).some((entry) => entry.name === parsed.name);
	}

	/**
	 * Runs a command; resolves false when no command has that name. Resolves after the handler
	 * finished (its dialogs included); a throw is reported as `command:<name>` / "command".
	 */
	async runCommand(name: string, args: string): Promise<boolean> {
		const entry = commandTable(this.records).find((candidate) => candidate.name === name);
		if (!entry) return false;
		const record = this.records.find((candidate) => candidate.path === entry.extensionPath);
		try {
			await entry.command.handler(args, createCommandContext(this.parts(record, undefined)));
		} catch (error) {
			this.onError({ extensionPath: `command:${name}`, event: "command", error: errorText(error) });
		}
		return true;
	}

	/** `runCommand` for a `/name args` text; false when it names no registered command. */
	runCommandText(text: string): Promise<boolean> {
		const parsed = parseSlashCommand(text);
		return parsed ? this.runCommand(parsed.name, parsed.args) : Promise.resolve(false);
	}

	/** The extensions' tools as AgentTools (the first extension to register a name owns it). */
	tools(): AgentTool[] {
		const tools: AgentTool[] = [];
		for (const record of this.records) {
			for (const definition of record.tools.values()) {
				let tool = this.wrappedTools.get(definition);
				if (!tool) {
					tool = toAgentTool(definition, (signal, toolCallId) =>
						createToolContext({ ...this.parts(record, signal), signal }, toolCallId),
					);
					this.wrappedTools.set(definition, tool);
				}
				tools.push(tool);
			}
		}
		return tools;
	}

	/** The tools the model is offered: all of them, or the set `pi.setActiveTools` chose. */
	filterActive(tools: AgentTool[]): AgentTool[] {
		return this.activeTools.apply(tools);
	}

	// ---------------------------------------------------------------- events

	hasHandlers(event: string): boolean {
		return this.records.some((record) => (record.handlers.get(event)?.length ?? 0) > 0);
	}

	/** Delivers an observation event to its handlers; resolves when they all finished. */
	async emit(event: ObservedEvent): Promise<void> {
		let delivered: ObservedEvent | TurnStartEvent | TurnEndEvent = event;
		if (event.type === "agent_start") this.turnIndex = 0;
		else if (event.type === "turn_start") delivered = { ...event, turnIndex: this.turnIndex, timestamp: Date.now() };
		else if (event.type === "turn_end") delivered = { ...event, turnIndex: this.turnIndex++ };
		for (const [record, handler] of this.handlersOf(event.type)) await this.invoke(record, handler, delivered);
	}

	/** Shaped for `AgentLoopConfig.beforeToolCall`; `context.args` is the event's (mutable) input. */
	readonly beforeToolCall = (context: ToolCallContext, signal: AbortSignal): Promise<ToolCallBlock | undefined> =>
		toolCallHook(this.dispatch, context, signal);

	/** Shaped for `AgentLoopConfig.afterToolCall`: handlers' patches chain; undefined when none changed anything. */
	readonly afterToolCall = (
		context: ToolCallContext & { result: AgentToolResult; isError: boolean },
		signal: AbortSignal,
	): Promise<ToolResultOverride | undefined> => toolResultHook(this.dispatch, context, signal);

	/** Shaped for `AgentLoopConfig.transformContext`: the `context` hook. */
	readonly transformContext = (messages: AgentMessage[], signal: AbortSignal): Promise<AgentMessage[]> =>
		contextHook(this.dispatch, messages, signal);

	/** The `input` hook: transforms chain, the first "handled" wins. */
	onInput(request: InputRequest): Promise<InputOutcome> {
		return inputHook(this.dispatch, request);
	}

	/** `before_agent_start`, with the system prompt the run would use. */
	beforeAgentStart(trigger: AgentStartTrigger, systemPrompt: string): Promise<AgentStartOutcome> {
		return beforeAgentStartHook(this.dispatch, trigger, systemPrompt, systemPromptOptions(this.host));
	}

	/** `resources_discover`: the skill and prompt template paths every handler returned, in order. */
	resourcesDiscover(
		cwd: string,
		reason: "startup" | "reload",
	): Promise<{ skillPaths: string[]; promptPaths: string[] }> {
		return resourcesHook(this.dispatch, { type: "resources_discover", cwd, reason });
	}

	/** `session_before_switch`: the first handler returning `{cancel: true}` cancels. */
	beforeSessionSwitch(
		reason: SessionBeforeSwitchEvent["reason"],
		targetSessionFile?: string,
	): Promise<{ cancel: boolean }> {
		const event: SessionBeforeSwitchEvent = { type: "session_before_switch", reason };
		if (targetSessionFile !== undefined) event.targetSessionFile = targetSessionFile;
		return cancellableHook(this.dispatch, event);
	}

	/** `session_before_fork` (fork: "before", clone: "at"): the first `{cancel: true}` cancels. */
	beforeFork(entryId: string | undefined, position: "before" | "at" = "before"): Promise<{ cancel: boolean }> {
		const event: SessionBeforeForkEvent = { type: "session_before_fork", position };
		if (entryId !== undefined) event.entryId = entryId;
		return cancellableHook(this.dispatch, event);
	}

	/** `session_before_tree`: the first `{cancel: true}` cancels the navigation. */
	beforeTree(preparation: SessionBeforeTreeEvent["preparation"], signal: AbortSignal): Promise<{ cancel: boolean }> {
		const event: SessionBeforeTreeEvent = { type: "session_before_tree", preparation, signal };
		return cancellableHook(this.dispatch, event);
	}

	/** `user_bash`: the first handler returning a result handles the command; undefined lets it run. */
	userBash(
		command: string,
		options: { excludeFromContext?: boolean; cwd?: string } = {},
	): Promise<UserBashResult | undefined> {
		return userBashHook(this.dispatch, {
			type: "user_bash",
			command,
			excludeFromContext: options.excludeFromContext === true,
			cwd: options.cwd ?? this.host.cwd,
		});
	}

	/** Emits `session_shutdown` (default reason "quit"); resolves when every handler finished. */
	async shutdown(reason: NonNullable<SessionShutdownEvent["reason"]> = "quit"): Promise<void> {
		const event: SessionShutdownEvent = { type: "session_shutdown", reason };
		for (const [record, handler] of this.handlersOf("session_shutdown")) await this.invoke(record, handler, event);
	}

	// ---------------------------------------------------------------- internals

	private handlersOf(event: string): [ExtensionRecord, StoredHandler][] {
		return this.records.flatMap((record) =>
			(record.handlers.get(event) ?? []).map((handler): [ExtensionRecord, StoredHandler] => [record, handler]),
		);
	}

	private async invoke(
		record: ExtensionRecord,
		handler: StoredHandler,
		event: { type: string },
		options: InvokeOptions = {},
	): Promise<Invocation> {
		try {
			return { ok: true, value: await handler(event, this.context(record, options)) };
		} catch (error) {
			const text = errorText(error);
			this.onError({ extensionPath: record.path, event: event.type, error: text });
			return { ok: false, error: text };
		}
	}

	/** Reads a handler's result; a malformed one is reported and ignored. */
	private read<T>(record: ExtensionRecord, event: string, reader: () => T): T | undefined {
		try {
			return reader();
		} catch (error) {
			this.onError({ extensionPath: record.path, event, error: errorText(error) });
			return undefined;
		}
	}

	private parts(
		record: ExtensionRecord | undefined,
		signal: AbortSignal | undefined,
		systemPrompt?: () => string,
	): ContextParts {
		const parts: ContextParts = {
			host: this.host,
			ui: this.ui,
			hasUI: this.hasUI,
			signal,
			...this.views,
			report: (event, error) => this.onError({ extensionPath: record?.path ?? "", event, error }),
		};
		if (systemPrompt) parts.systemPrompt = systemPrompt;
		return parts;
	}

	private context(record: ExtensionRecord, options: InvokeOptions): ExtensionContext {
		return createExtensionContext(this.parts(record, options.signal, options.systemPrompt));
	}
}
