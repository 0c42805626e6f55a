import type { AgentTool, AgentToolResult, ToolCallBlock, ToolCallContext, ToolResultOverride } from "../agent/types.js";
import type { ImageContent } from "../llm/types.js";
import type { ExtensionCommandInfo } from "../resources/commands.js";
import { parseSlashCommand } from "../resources/slash-command.js";
import { createExtensionApi } from "./api.js";
import { createExtensionContext } from "./context.js";
import type {
	InputSource,
	ObservedEvent,
	SessionBeforeForkEvent,
	SessionBeforeSwitchEvent,
	SessionShutdownEvent,
	ToolResultEvent,
	TurnEndEvent,
	TurnStartEvent,
	UserBashResult,
} from "./events.js";
import { inputDecision, isBlock, isCancel, toolResultPatch, userBashResult } from "./hook-results.js";
import { type ExtensionErrorListener, type ExtensionHost, errorText } from "./host.js";
import { commandTable, type ExtensionRecord, newExtensionRecord, type StoredHandler } from "./registry.js";
import { toAgentTool } from "./tool-adapter.js";
import type { ExtensionContext, ExtensionFactory, ToolDefinition } from "./types.js";
import { createUiContext, headlessUiBackend } from "./ui-context.js";
import type { ExtensionUiBackend, ExtensionUiContext } from "./ui-types.js";

export interface ExtensionRunnerOptions {
	host: ExtensionHost;
	/** The UI host (RPC). Omitted: no UI, `ctx.hasUI` is false and dialogs answer their default. */
	ui?: ExtensionUiBackend;
	/** Receives every load, hook and command failure. Must not throw. */
	onError: ExtensionErrorListener;
	/** How long one factory may take before it is given up (default EXTENSION_LOAD_TIMEOUT_MS). */
	loadTimeoutMs?: number;
}

export interface InputRequest {
	text: string;
	images?: ImageContent[];
	/** Pass it only while streaming (extensions read its presence as "the agent is busy"). */
	streamingBehavior?: string;
	/** Default "rpc". */
	source?: InputSource;
}

export type InputOutcome = { handled: true } | { handled: false; text: string; images?: ImageContent[] };

type Invocation = { ok: true; value: unknown } | { ok: false; error: string };

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
	private readonly baseContext: ExtensionContext;
	private turnIndex = 0;
	private readonly loadTimeoutMs: number;

	constructor(options: ExtensionRunnerOptions) {
		this.loadTimeoutMs = options.loadTimeoutMs ?? EXTENSION_LOAD_TIMEOUT_MS;
		this.host = options.host;
		this.onError = options.onError;
		this.hasUI = options.ui !== undefined;
		this.ui = createUiContext(options.ui ?? headlessUiBackend);
		this.baseContext = this.context(undefined);
	}

	/** The files of the extensions that loaded, in load order. */
	get extensionPaths(): string[] {
		return this.records.map((record) => record.path);
	}

	/** Runs one extension's factory; on a throw its registrations are dropped and false returned. */
	async addExtension(path: string, factory: ExtensionFactory): Promise<boolean> {
		const record = newExtensionRecord(path);
		const api = createExtensionApi(record, {
			host: this.host,
			report: this.onError,
			toolOwner: (name, except) => this.records.find((other) => other !== except && other.tools.has(name))?.path,
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
			const info: ExtensionCommandInfo = { name: entry.name, path: entry.extensionPath };
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
		try {
			await entry.command.handler(args, this.baseContext);
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
					tool = toAgentTool(definition, (signal) => this.context(signal));
					this.wrappedTools.set(definition, tool);
				}
				tools.push(tool);
			}
		}
		return tools;
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
	readonly beforeToolCall = async (
		context: ToolCallContext,
		signal: AbortSignal,
	): Promise<ToolCallBlock | undefined> => {
		const event = {
			type: "tool_call",
			toolName: context.toolCall.name,
			toolCallId: context.toolCall.id,
			input: context.args,
		};
		for (const [record, handler] of this.handlersOf("tool_call")) {
			const outcome = await this.invoke(record, handler, event, signal);
			if (!outcome.ok) return { block: true, reason: `Extension failed, blocking execution: ${outcome.error}` };
			if (isBlock(outcome.value)) {
				const block: ToolCallBlock = { block: true };
				if (typeof outcome.value.reason === "string") block.reason = outcome.value.reason;
				return block;
			}
		}
		return undefined;
	};

	/** Shaped for `AgentLoopConfig.afterToolCall`: handlers' patches chain; undefined when none changed anything. */
	readonly afterToolCall = async (
		context: ToolCallContext & { result: AgentToolResult; isError: boolean },
		signal: AbortSignal,
	): Promise<ToolResultOverride | undefined> => {
		const event: ToolResultEvent = {
			type: "tool_result",
			toolName: context.toolCall.name,
			toolCallId: context.toolCall.id,
			input: context.args,
			content: context.result.content,
			details: context.result.details,
			isError: context.isError,
		};
		let changed = false;
		for (const [record, handler] of this.handlersOf("tool_result")) {
			const outcome = await this.invoke(record, handler, { ...event }, signal);
			if (!outcome.ok) continue;
			const patch = this.read(record, "tool_result", () => toolResultPatch(outcome.value));
			if (!patch) continue;
			Object.assign(event, patch);
			changed = true;
		}
		return changed ? { content: event.content, details: event.details, isError: event.isError } : undefined;
	};

	/** The `input` hook: transforms chain, the first "handled" wins. */
	async onInput(request: InputRequest): Promise<InputOutcome> {
		let text = request.text;
		let images = request.images;
		for (const [record, handler] of this.handlersOf("input")) {
			const event = { type: "input", text, images, source: request.source ?? "rpc" };
			const delivered = request.streamingBehavior ? { ...event, streamingBehavior: request.streamingBehavior } : event;
			const outcome = await this.invoke(record, handler, delivered);
			if (!outcome.ok) continue;
			const decision = this.read(record, "input", () => inputDecision(outcome.value));
			if (decision?.action === "handled") return { handled: true };
			if (decision?.action === "transform") {
				text = decision.text;
				if (decision.images !== undefined) images = decision.images;
			}
		}
		return images === undefined ? { handled: false, text } : { handled: false, text, images };
	}

	/** `session_before_switch`: the first handler returning `{cancel: true}` cancels. */
	beforeSessionSwitch(
		reason: SessionBeforeSwitchEvent["reason"],
		targetSessionFile?: string,
	): Promise<{ cancel: boolean }> {
		const event: SessionBeforeSwitchEvent = { type: "session_before_switch", reason };
		if (targetSessionFile !== undefined) event.targetSessionFile = targetSessionFile;
		return this.cancellable(event);
	}

	/** `session_before_fork` (fork and clone): the first `{cancel: true}` cancels. */
	beforeFork(entryId?: string): Promise<{ cancel: boolean }> {
		const event: SessionBeforeForkEvent = { type: "session_before_fork" };
		if (entryId !== undefined) event.entryId = entryId;
		return this.cancellable(event);
	}

	/** `user_bash`: the first handler returning a result handles the command; undefined lets it run. */
	async userBash(
		command: string,
		options: { excludeFromContext?: boolean; cwd?: string } = {},
	): Promise<UserBashResult | undefined> {
		const event = {
			type: "user_bash",
			command,
			excludeFromContext: options.excludeFromContext === true,
			cwd: options.cwd ?? this.host.cwd,
		};
		for (const [record, handler] of this.handlersOf("user_bash")) {
			const outcome = await this.invoke(record, handler, event);
			if (!outcome.ok) continue;
			const result = this.read(record, "user_bash", () => userBashResult(outcome.value));
			if (result) return result;
		}
		return undefined;
	}

	/** Emits `session_shutdown` (default reason "quit"); resolves when every handler finished. */
	async shutdown(reason: NonNullable<SessionShutdownEvent["reason"]> = "quit"): Promise<void> {
		const event: SessionShutdownEvent = { type: "session_shutdown", reason };
		for (const [record, handler] of this.handlersOf("session_shutdown")) await this.invoke(record, handler, event);
	}

	// ---------------------------------------------------------------- internals

	private async cancellable(event: { type: string }): Promise<{ cancel: boolean }> {
		for (const [record, handler] of this.handlersOf(event.type)) {
			const outcome = await this.invoke(record, handler, event);
			if (outcome.ok && isCancel(outcome.value)) return { cancel: true };
		}
		return { cancel: false };
	}

	/** A snapshot, so handlers registered while dispatching wait for the next event. */
	private handlersOf(event: string): [ExtensionRecord, StoredHandler][] {
		return this.records.flatMap((record) =>
			(record.handlers.get(event) ?? []).map((handler): [ExtensionRecord, StoredHandler] => [record, handler]),
		);
	}

	private async invoke(
		record: ExtensionRecord,
		handler: StoredHandler,
		event: { type: string },
		signal?: AbortSignal,
	): Promise<Invocation> {
		try {
			return { ok: true, value: await handler(event, signal ? this.context(signal) : this.baseContext) };
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

	private context(signal: AbortSignal | undefined): ExtensionContext {
		return createExtensionContext({ host: this.host, ui: this.ui, hasUI: this.hasUI, signal });
	}
}
