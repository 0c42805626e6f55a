import type { AgentSession } from "../runtime/facade/agent-session.js";
import { publicModel } from "../runtime/models/model-selection.js";
import type { RpcApprovals } from "./approvals.js";
import type { Command, CommandOf, CommandType } from "./protocol/commands.js";
import { failure, type Response, type ResponseId, success } from "./protocol/responses.js";
import { listSessionSummaries, liveSummary } from "./session-summaries.js";

export interface HandlerContext {
	session: AgentSession;
	/**
	 * Writes a record now (events that belong to a command, e.g. bash deltas). Returns a promise
	 * while stdout is congested: it resolves once the reader has caught up.
	 */
	emit(record: Record<string, unknown>): Promise<void> | undefined;
	/**
	 * Lets the commands behind this one start before it is done: a prompt once it is accepted,
	 * bash once it has started. Other commands hold the order until their response.
	 */
	release(): void;
	/**
	 * Lets the commands behind this one that only read or queue input start before it is done
	 * (command-order.ts, OPEN_ORDER_COMMANDS): `compact` once started. The others still wait.
	 */
	open(): void;
	/** Where tool approval answers go; absent: no request can be open. */
	approvals?: RpcApprovals;
}

type Handler<K extends CommandType> = (command: CommandOf<K>, context: HandlerContext) => Promise<unknown> | unknown;

function errorText(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

/**
 * Runs one validated command and resolves with its one response. Never rejects: a thrown error
 * becomes a failure response. `prompt` writes its response itself, synchronously at acceptance
 * (so it precedes agent_start), and resolves with undefined; its run reports through events.
 */
export async function handleCommand(command: Command, context: HandlerContext): Promise<Response | undefined> {
	const id = command.id;
	if (command.type === "prompt") return handlePrompt(command, id, context);
	const handler = HANDLERS[command.type] as Handler<CommandType>;
	try {
		const data = await handler(command, context);
		return success(command.type, id, data);
	} catch (error) {
		return failure(command.type, id, errorText(error));
	}
}

function handlePrompt(
	command: CommandOf<"prompt">,
	id: ResponseId | undefined,
	context: HandlerContext,
): Promise<undefined> {
	return new Promise((resolve) => {
		let accepted = false;
		context.session
			.prompt(command.message, {
				images: command.images,
				streamingBehavior: command.streamingBehavior,
				onAccepted: (disposition) => {
					accepted = true;
					// Written now, synchronously, so that it precedes the run's agent_start.
					void context.emit({ ...success("prompt", id, { disposition }) });
					context.release();
					resolve(undefined);
				},
				// Later commands go on while an extension command runs (it may wait on a dialog).
				onCommandStart: () => context.release(),
			})
			.catch((error: unknown) => {
				if (accepted) {
					process.stderr.write(`Error after the prompt was accepted: ${errorText(error)}\n`);
					return;
				}
				void context.emit({ ...failure("prompt", id, errorText(error)) });
				resolve(undefined);
			});
	});
}

/**
 * bash and user_bash: deltas go out as bash_execution_update with the request's id, before the
 * response. None is dropped: while stdout is congested the command's output is not read, so the
 * command itself waits.
 */
function runBash(command: CommandOf<"bash"> | CommandOf<"user_bash">, context: HandlerContext) {
	return context.session.executeBash(command.command, {
		requestId: command.id,
		excludeFromContext: command.excludeFromContext,
		onStarted: () => context.release(),
		onData: (channel, delta) =>
			context.emit(
				command.id === undefined
					? { type: "bash_execution_update", channel, delta }
					: { type: "bash_execution_update", id: command.id, channel, delta },
			),
	});
}

const NOT_SERVED =
	"attach and detach are commands of atomic serve: this process has one session (switch_session, new_session)";

/** steer and follow_up never run a command or a hook: what they take is always queued. */
const QUEUED = { disposition: "queued" } as const;

const HANDLERS: { [K in Exclude<CommandType, "prompt">]: Handler<K> } = {
	steer: async (command, { session }) => {
		await session.steer(command.message, command.images);
		return QUEUED;
	},
	follow_up: async (command, { session }) => {
		await session.followUp(command.message, command.images);
		return QUEUED;
	},
	abort: (_command, { session }) => session.abort(),
	new_session: (command, { session }) => session.newSession({ parentSession: command.parentSession }),
	get_state: (_command, { session }) => session.getState(),
	get_messages: (_command, { session }) => ({ messages: session.messages }),
	set_model: (command, { session }) => publicModel(session.setModel(command.provider, command.modelId)),
	cycle_model: (command, { session }) => {
		const result = session.cycleModel(command.direction);
		return result ? { ...result, model: publicModel(result.model) } : null;
	},
	get_available_models: (_command, { session }) => ({ models: session.availableModels().map(publicModel) }),
	logout_provider: (command, { session }) => {
		const { authStatus, models } = session.logoutProvider(command.provider);
		return { provider: command.provider, authStatus, models: models.map(publicModel) };
	},
	set_thinking_level: (command, { session }) => {
		session.setThinkingLevel(command.level);
	},
	cycle_thinking_level: (_command, { session }) => {
		const level = session.cycleThinkingLevel();
		return level === undefined ? null : { level };
	},
	get_available_thinking_levels: (_command, { session }) => ({ levels: session.availableThinkingLevels() }),
	set_steering_mode: (command, { session }) => session.setSteeringMode(command.mode),
	set_follow_up_mode: (command, { session }) => session.setFollowUpMode(command.mode),
	compact: (command, { session, open }) =>
		session.compact(
			{
				compression_ratio: command.compression_ratio,
				preserve_recent: command.preserve_recent,
				query: command.query ?? command.customInstructions,
			},
			{ onStarted: open },
		),
	abort_compaction: (_command, { session }) => {
		session.abortCompaction();
	},
	set_auto_compaction: (command, { session }) => session.setAutoCompaction(command.enabled),
	set_auto_retry: (command, { session }) => session.setAutoRetry(command.enabled),
	abort_retry: (_command, { session }) => {
		session.abortRetry();
	},
	bash: (command, context) => runBash(command, context),
	user_bash: (command, context) => runBash(command, context),
	import_session: (command, { session }) => session.importSession(command.inputPath, command.cwdOverride),
	set_label: (command, { session }) => session.setLabel(command.entryId, command.label),
	navigate_tree: (command, { session }) => session.navigateTree(command.targetId, command.options),
	pause_queued_messages: (_command, { session }) => session.pauseQueuedMessages(),
	resume_queued_messages: (_command, { session }) => session.resumeQueuedMessages(),
	abort_bash: (command, { session }) =>
		session.abortBash(command.requestId === undefined ? undefined : String(command.requestId)),
	get_session_stats: (_command, { session }) => session.getSessionStats(),
	export_html: async (command, { session }) => ({ path: await session.exportHtml(command.outputPath) }),
	switch_session: (command, { session }) => session.switchSession(command.sessionPath),
	fork: (command, { session }) => session.fork(command.entryId),
	clone: (_command, { session }) => session.clone(),
	get_fork_messages: (_command, { session }) => ({ messages: session.getForkMessages() }),
	get_entries: (command, { session }) => session.getEntries(command.since),
	get_tree: (_command, { session }) => session.getTree(),
	get_last_assistant_text: (_command, { session }) => ({ text: session.getLastAssistantText() }),
	set_session_name: (command, { session }) => session.setSessionName(command.name),
	get_commands: async (_command, { session }) => ({ commands: await session.getCommands() }),
	clear_queue: (_command, { session }) => session.clearQueue(),
	tool_approval_response: (command, { approvals }) => {
		if (!approvals) throw new Error(`No open tool approval request with id "${command.requestId}"`);
		approvals.answer(command.requestId, command.decision, command.message);
	},
	set_approval_mode: (command, { session }) => session.setApprovalMode(command.mode),
	set_sandbox_mode: (command, { session }) => session.setSandboxMode(command.mode),
	get_mcp_servers: async (_command, { session }) => ({ servers: await session.getMcpServers() }),
	list_sessions: (command, { session }) => ({
		sessions: listSessionSummaries([liveSummary(session, 1)], session.storedSessions(command.cwd)),
	}),
	attach: () => {
		throw new Error(NOT_SERVED);
	},
	detach: () => {
		throw new Error(NOT_SERVED);
	},
};
