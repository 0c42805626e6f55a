import type { AgentMessage } from "../../agent/messages.js";
import type { ImageContent, ThinkingLevel } from "../../llm/types.js";
import type { SessionSummary } from "../../runtime/facade/api-types.js";
import type { CommandOf } from "../protocol/commands.js";
import { type Fields, RpcConnection } from "./connection.js";
import { toModelInfo } from "./model-info.js";
import { isAttachResult, sessionsOf } from "./network/records.js";
import type { CallOptions } from "./options.js";
import type { CommandResults, ModelInfo, RpcModel } from "./results.js";
import type { AttachResult } from "./types.js";

type QueueMode = CommandOf<"set_steering_mode">["mode"];
type ApprovalMode = CommandOf<"set_approval_mode">["mode"];
type SandboxMode = CommandOf<"set_sandbox_mode">["mode"];
type ApprovalDecision = CommandOf<"tool_approval_response">["decision"];

/**
 * One method per command (prompting, bash and the waits are in RpcClient). Each sends its
 * command with typed fields and resolves with the response's typed `data` (unwrapped where the
 * data is a single field). A new command is one method here plus its entry in CommandResults.
 */
export class RpcCommands<Url extends string | undefined = undefined> extends RpcConnection<Url> {
	/** Resolves with `"queued"` once the message is queued. */
	async steer(message: string, images?: ImageContent[], options?: CallOptions): Promise<"queued"> {
		return (await this.call("steer", { message, images }, options)).disposition;
	}

	/** Resolves with `"queued"` once the message is queued. */
	async followUp(message: string, images?: ImageContent[], options?: CallOptions): Promise<"queued"> {
		return (await this.call("follow_up", { message, images }, options)).disposition;
	}

	abort(options?: CallOptions): Promise<void> {
		return this.call("abort", {}, options);
	}

	clearQueue(options?: CallOptions): Promise<CommandResults["clear_queue"]> {
		return this.call("clear_queue", {}, options);
	}

	setSteeringMode(mode: QueueMode, options?: CallOptions): Promise<void> {
		return this.call("set_steering_mode", { mode }, options);
	}

	setFollowUpMode(mode: QueueMode, options?: CallOptions): Promise<void> {
		return this.call("set_follow_up_mode", { mode }, options);
	}

	// ------------------------------------------------------------------ state and models

	getState(options?: CallOptions): Promise<CommandResults["get_state"]> {
		return this.call("get_state", {}, options);
	}

	async getMessages(options?: CallOptions): Promise<AgentMessage[]> {
		return (await this.call("get_messages", {}, options)).messages;
	}

	setModel(provider: string, modelId: string, options?: CallOptions): Promise<RpcModel> {
		return this.call("set_model", { provider, modelId }, options);
	}

	cycleModel(direction?: "forward" | "backward", options?: CallOptions): Promise<CommandResults["cycle_model"]> {
		return this.call("cycle_model", { direction }, options);
	}

	/** The models with credentials, in the small ModelInfo shape (with capability claims as `compat`). */
	async getAvailableModels(options?: CallOptions): Promise<ModelInfo[]> {
		return (await this.getAvailableModelsFull(options)).map(toModelInfo);
	}

	/** The models with credentials, as full Model objects. */
	async getAvailableModelsFull(options?: CallOptions): Promise<RpcModel[]> {
		return (await this.call("get_available_models", {}, options)).models;
	}

	logoutProvider(provider: string, options?: CallOptions): Promise<CommandResults["logout_provider"]> {
		return this.call("logout_provider", { provider }, options);
	}

	setThinkingLevel(level: ThinkingLevel, options?: CallOptions): Promise<void> {
		return this.call("set_thinking_level", { level }, options);
	}

	cycleThinkingLevel(options?: CallOptions): Promise<CommandResults["cycle_thinking_level"]> {
		return this.call("cycle_thinking_level", {}, options);
	}

	async getAvailableThinkingLevels(options?: CallOptions): Promise<ThinkingLevel[]> {
		return (await this.call("get_available_thinking_levels", {}, options)).levels;
	}

	// ------------------------------------------------------------------ compaction, retry, bash

	compact(parameters: Fields<"compact"> = {}, options?: CallOptions): Promise<CommandResults["compact"]> {
		return this.call("compact", parameters, options);
	}

	abortCompaction(options?: CallOptions): Promise<void> {
		return this.call("abort_compaction", {}, options);
	}

	setAutoCompaction(enabled: boolean, options?: CallOptions): Promise<void> {
		return this.call("set_auto_compaction", { enabled }, options);
	}

	setAutoRetry(enabled: boolean, options?: CallOptions): Promise<void> {
		return this.call("set_auto_retry", { enabled }, options);
	}

	abortRetry(options?: CallOptions): Promise<void> {
		return this.call("abort_retry", {}, options);
	}

	/** Cancels the bash command with this request id, or all of them. */
	abortBash(requestId?: string | number, options?: CallOptions): Promise<void> {
		return this.call("abort_bash", { requestId }, options);
	}

	// ------------------------------------------------------------------ session

	newSession(parentSession?: string, options?: CallOptions): Promise<CommandResults["new_session"]> {
		return this.call("new_session", { parentSession }, options);
	}

	switchSession(sessionPath: string, options?: CallOptions): Promise<CommandResults["switch_session"]> {
		return this.call("switch_session", { sessionPath }, options);
	}

	fork(entryId: string, options?: CallOptions): Promise<CommandResults["fork"]> {
		return this.call("fork", { entryId }, options);
	}

	clone(options?: CallOptions): Promise<CommandResults["clone"]> {
		return this.call("clone", {}, options);
	}

	async getForkMessages(options?: CallOptions): Promise<CommandResults["get_fork_messages"]["messages"]> {
		return (await this.call("get_fork_messages", {}, options)).messages;
	}

	getEntries(since?: string, options?: CallOptions): Promise<CommandResults["get_entries"]> {
		return this.call("get_entries", { since }, options);
	}

	getTree(options?: CallOptions): Promise<CommandResults["get_tree"]> {
		return this.call("get_tree", {}, options);
	}

	/** The text of the last assistant message, or null when there is none. */
	async getLastAssistantText(options?: CallOptions): Promise<string | null> {
		return (await this.call("get_last_assistant_text", {}, options)).text;
	}

	setSessionName(name: string, options?: CallOptions): Promise<void> {
		return this.call("set_session_name", { name }, options);
	}

	getSessionStats(options?: CallOptions): Promise<CommandResults["get_session_stats"]> {
		return this.call("get_session_stats", {}, options);
	}

	/** Writes the session as HTML; resolves with the file's path. */
	async exportHtml(outputPath?: string, options?: CallOptions): Promise<string> {
		return (await this.call("export_html", { outputPath }, options)).path;
	}

	async getCommands(options?: CallOptions): Promise<CommandResults["get_commands"]["commands"]> {
		return (await this.call("get_commands", {}, options)).commands;
	}

	/** The configured MCP servers with their status, transport, source and tool names. */
	async getMcpServers(options?: CallOptions): Promise<CommandResults["get_mcp_servers"]["servers"]> {
		return (await this.call("get_mcp_servers", {}, options)).servers;
	}

	/** Queue every prompt (even when idle) and hold queued messages until resumed. */
	pauseQueuedMessages(options?: CallOptions): Promise<void> {
		return this.call("pause_queued_messages", {}, options);
	}

	resumeQueuedMessages(options?: CallOptions): Promise<CommandResults["resume_queued_messages"]> {
		return this.call("resume_queued_messages", {}, options);
	}

	importSession(inputPath: string, cwdOverride?: string, options?: CallOptions): Promise<{ cancelled: boolean }> {
		return this.call("import_session", { inputPath, cwdOverride }, options);
	}

	/** Sets the label of a session entry, or clears it (no label). */
	setLabel(entryId: string, label?: string, options?: CallOptions): Promise<void> {
		return this.call("set_label", { entryId, label }, options);
	}

	// ------------------------------------------------------------------ tool approvals

	/** How tool calls are approved from now on (this process only). */
	setApprovalMode(mode: ApprovalMode, options?: CallOptions): Promise<void> {
		return this.call("set_approval_mode", { mode }, options);
	}

	/** Where the model's bash commands run from now on (this process only). */
	setSandboxMode(mode: SandboxMode, options?: CallOptions): Promise<void> {
		return this.call("set_sandbox_mode", { mode }, options);
	}

	/**
	 * Answers a `tool_approval_request` (an onApprovalRequest handler does this for you). Rejects
	 * with RpcCommandError when no request with this id is open (unknown, or decided meanwhile).
	 */
	respondToApproval(
		requestId: string,
		decision: ApprovalDecision,
		message?: string,
		options?: CallOptions,
	): Promise<void> {
		return this.call("tool_approval_response", { requestId, decision, message }, options);
	}

	navigateTree(
		targetId: string,
		navigation?: Fields<"navigate_tree">["options"],
		options?: CallOptions,
	): Promise<CommandResults["navigate_tree"]> {
		return this.call("navigate_tree", { targetId, options: navigation }, options);
	}

	// ------------------------------------------------------------------ sessions of atomic serve

	/**
	 * The sessions: those the server (or the process) holds live, then the stored ones of `cwd`
	 * (default: the session's folder) that are not.
	 */
	async listSessions(parameters: { cwd?: string } = {}, options?: CallOptions): Promise<SessionSummary[]> {
		const command: { type: string } & Record<string, unknown> = { type: "list_sessions" };
		if (parameters.cwd !== undefined) command.cwd = parameters.cwd;
		const sessions = sessionsOf(await this.send(command, options));
		if (!sessions) throw new Error("The answer to list_sessions is not a list of sessions");
		return sessions;
	}

	/**
	 * Attaches to another session (`null`: a new one, in `cwd` or the server's folder) and
	 * resolves with `{ sessionId, seq, state }`; from then on events are that session's, and a
	 * reconnect attaches to it again. A network client only.
	 */
	async attach(
		sessionId: string | null,
		parameters: { cwd?: string } = {},
		options?: CallOptions,
	): Promise<AttachResult> {
		const command: Record<string, unknown> = { sessionId };
		if (parameters.cwd !== undefined) command.cwd = parameters.cwd;
		const data = await this.send(this.serverCommand("attach", command), options);
		if (!isAttachResult(data)) throw new Error("The server's answer to attach has no session id, seq and state");
		return data;
	}

	/** Stops the session's events to this client; a reconnect attaches to none. A network client only. */
	async detach(options?: CallOptions): Promise<void> {
		await this.send(this.serverCommand("detach", {}), options);
	}

	/** A command only `atomic serve` carries out: a process client refuses it here, with the reason. */
	private serverCommand(
		type: "attach" | "detach",
		fields: Record<string, unknown>,
	): { type: string } & Record<string, unknown> {
		if (!this.isNetwork) {
			throw new Error(`${type} is a command of atomic serve: this client speaks to a process it spawned (pass url)`);
		}
		return { ...fields, type };
	}
}
