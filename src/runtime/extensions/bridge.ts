import type { AgentMessage } from "../../agent/messages.js";
import type {
	AgentEvent,
	AgentTool,
	AgentToolResult,
	ToolCallBlock,
	ToolCallContext,
	ToolResultOverride,
} from "../../agent/types.js";
import {
	type AgentStartOutcome,
	type AgentStartTrigger,
	type ExtensionError,
	type ExtensionHost,
	type ExtensionMode,
	type ExtensionRunner,
	type InputOutcome,
	type InputRequest,
	loadExtensions,
	type ObservedEvent,
	type SessionBeforeTreeEvent,
	type SessionShutdownEvent,
	type SessionStartEvent,
	type SessionStartReason,
	type UserBashResult,
} from "../../extensions/index.js";
import type { ExtensionUiBackend } from "../../extensions/ui-types.js";
import type { ExtensionCommandInfo } from "../../resources/commands.js";

/** How extensions are found and what they may use; absent: no extensions at all. */
export interface ExtensionSetup {
	/** `-e/--extension` paths (they load even when discovery is off). */
	paths: string[];
	/** Discover `<agentDir>/extensions` and `.atomic/extensions` (false with `--no-extensions`). */
	discover: boolean;
	agentDir: string;
	mode: ExtensionMode;
	/** The dialog host (RPC); absent in print and json modes. */
	ui?: ExtensionUiBackend;
	/** Resolves every open dialog with its default (on abort and session replacement). */
	cancelDialogs?(): void;
	/** An extension asked for a graceful shutdown (`ctx.shutdown()`). */
	requestShutdown?(): void;
}

export type BridgeHost = Omit<ExtensionHost, "mode" | "shutdown"> & {
	/** Reports an extension failure (RPC `extension_error`). Must not throw. */
	reportError(error: ExtensionError): void;
	/** Called once the extensions are loaded (their tools and commands become available). */
	onLoaded(): void;
};

export const QUEUED_COMMAND_MESSAGE = (name: string) =>
	`Extension command "/${name}" cannot be queued. Use prompt() or execute the command when not streaming.`;

/**
 * The runtime's side of the extension system: loads extensions in the background, and offers
 * their commands, tools and hooks to the session in a form that costs nothing when there are no
 * extensions. Nothing here throws because of an extension.
 */
export class ExtensionBridge {
	private runner: ExtensionRunner | undefined;
	readonly ready: Promise<void>;

	constructor(
		private readonly setup: ExtensionSetup | undefined,
		host: BridgeHost,
		cwd: string,
	) {
		if (!setup || (!setup.discover && setup.paths.length === 0)) {
			this.ready = Promise.resolve();
			return;
		}
		const fullHost: ExtensionHost = Object.create(host, {
			mode: { value: setup.mode },
			shutdown: { value: () => setup.requestShutdown?.() },
		});
		this.ready = loadExtensions({
			paths: setup.paths,
			discover: setup.discover,
			cwd,
			agentDir: setup.agentDir,
			host: fullHost,
			ui: setup.ui,
			onError: (error) => host.reportError(error),
		}).then(
			(runner) => {
				if (runner.extensionPaths.length === 0) return;
				this.runner = runner;
				host.onLoaded();
			},
			(error: unknown) =>
				host.reportError({
					extensionPath: "",
					event: "load",
					error: error instanceof Error ? error.message : String(error),
				}),
		);
	}

	get loaded(): boolean {
		return this.runner !== undefined;
	}

	commands(): ExtensionCommandInfo[] {
		return this.runner?.commands() ?? [];
	}

	tools(): AgentTool[] {
		return this.runner?.tools() ?? [];
	}

	/** The tools the model is offered: all of them, or those `pi.setActiveTools` chose. */
	filterActive(tools: AgentTool[]): AgentTool[] {
		return this.runner ? this.runner.filterActive(tools) : tools;
	}

	/** The name of the extension command `text` invokes (`/name args`), if it is one. */
	commandName(text: string): string | undefined {
		if (!this.runner?.isCommand(text)) return undefined;
		return text.slice(1).split(/\s/, 1)[0];
	}

	runCommand(text: string): Promise<boolean> {
		return this.runner?.runCommandText(text) ?? Promise.resolve(false);
	}

	onInput(request: InputRequest): Promise<InputOutcome> {
		if (!this.runner) return Promise.resolve({ handled: false, text: request.text, images: request.images });
		return this.runner.onInput(request);
	}

	readonly beforeToolCall = (context: ToolCallContext, signal: AbortSignal): Promise<ToolCallBlock | undefined> =>
		this.runner ? this.runner.beforeToolCall(context, signal) : Promise.resolve(undefined);

	/** Shaped for `AgentLoopConfig.transformContext`: the `context` hook (the messages as they are without handlers). */
	readonly transformContext = (messages: AgentMessage[], signal: AbortSignal): Promise<AgentMessage[]> =>
		this.runner?.hasHandlers("context") ? this.runner.transformContext(messages, signal) : Promise.resolve(messages);

	/** Whether an extension listens to `event`. */
	hasHandlers(event: string): boolean {
		return this.runner?.hasHandlers(event) ?? false;
	}

	/** `before_agent_start` for a run starting with `trigger`; undefined when nobody listens. */
	async beforeAgentStart(trigger: AgentStartTrigger, systemPrompt: string): Promise<AgentStartOutcome | undefined> {
		if (!this.runner?.hasHandlers("before_agent_start")) return undefined;
		return this.runner.beforeAgentStart(trigger, systemPrompt);
	}

	/** Delivers a notification to extensions without waiting for their handlers. */
	notify(event: ObservedEvent): void {
		if (this.runner?.hasHandlers(event.type)) void this.runner.emit(event);
	}

	readonly afterToolCall = (
		context: ToolCallContext & { result: AgentToolResult; isError: boolean },
		signal: AbortSignal,
	): Promise<ToolResultOverride | undefined> =>
		this.runner ? this.runner.afterToolCall(context, signal) : Promise.resolve(undefined);

	/** Forwards an agent event to extension handlers (updates only when someone listens). */
	emit(event: AgentEvent): Promise<void> | undefined {
		const runner = this.runner;
		if (!runner) return undefined;
		if (event.type === "message_update" && !runner.hasHandlers("message_update")) return undefined;
		if (event.type === "queue_update" || event.type.startsWith("auto_retry")) return undefined;
		return runner.emit(event as Parameters<ExtensionRunner["emit"]>[0]);
	}

	/** Whether a replacement may go ahead (`session_before_switch`). */
	async allowSwitch(reason: "new" | "resume" | "import", target?: string): Promise<boolean> {
		await this.ready;
		if (!this.runner) return true;
		return !(await this.runner.beforeSessionSwitch(reason, target)).cancel;
	}

	/** Whether a fork ("before" a user message) or clone ("at" the leaf) may go ahead (`session_before_fork`). */
	async allowFork(entryId: string | undefined, position: "before" | "at"): Promise<boolean> {
		await this.ready;
		if (!this.runner) return true;
		return !(await this.runner.beforeFork(entryId, position)).cancel;
	}

	/** Whether a tree navigation may go ahead (`session_before_tree`). */
	async allowTree(preparation: SessionBeforeTreeEvent["preparation"]): Promise<boolean> {
		await this.ready;
		if (!this.runner?.hasHandlers("session_before_tree")) return true;
		return !(await this.runner.beforeTree(preparation, new AbortController().signal)).cancel;
	}

	/** Before the session is replaced: open dialogs get their defaults, extensions hear session_shutdown. */
	async leaving(reason: NonNullable<SessionShutdownEvent["reason"]>): Promise<void> {
		this.setup?.cancelDialogs?.();
		await this.runner?.shutdown(reason);
	}

	/** After a session became current (or at start-up): `session_start`. */
	async started(reason: SessionStartReason, previousSessionFile?: string): Promise<void> {
		if (!this.runner) return;
		const event: SessionStartEvent = { type: "session_start", reason };
		if (previousSessionFile !== undefined) event.previousSessionFile = previousSessionFile;
		await this.runner.emit(event);
	}

	/** Skill and prompt template paths extensions add (`resources_discover`); undefined when none. */
	async discoverResources(
		cwd: string,
		reason: "startup" | "reload",
	): Promise<{ skillPaths: string[]; templatePaths: string[] } | undefined> {
		if (!this.runner?.hasHandlers("resources_discover")) return undefined;
		const found = await this.runner.resourcesDiscover(cwd, reason);
		if (found.skillPaths.length + found.promptPaths.length === 0) return undefined;
		return { skillPaths: found.skillPaths, templatePaths: found.promptPaths };
	}

	/** `user_bash`: an extension may answer a direct command instead of the shell. */
	userBash(
		command: string,
		options: { excludeFromContext?: boolean; cwd?: string },
	): Promise<UserBashResult | undefined> {
		return this.runner ? this.runner.userBash(command, options) : Promise.resolve(undefined);
	}

	cancelDialogs(): void {
		this.setup?.cancelDialogs?.();
	}
}
