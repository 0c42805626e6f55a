import { emptyUsage } from "../llm/cost.js";
import { describeError, errorFromThrown } from "../llm/errors.js";
import type {
	AssistantMessage,
	Model,
	StreamOptions,
	ThinkingLevel,
	ToolCall,
	ToolResultMessage,
} from "../llm/types.js";
import { type AgentMessage, convertToLlm } from "./messages.js";
import type { RetryPolicy } from "./retry.js";
import { type Emit, executeToolCalls } from "./tool-execution.js";
import type { AgentEvent, AgentEventSink, AgentLoopConfig, AgentTool } from "./types.js";

export interface LoopRun {
	/** Read afresh at every turn. */
	config: AgentLoopConfig;
	/** The conversation; the loop appends every message that joins it. */
	messages: AgentMessage[];
	sink: AgentEventSink;
	signal: AbortSignal;
	retry?: RetryPolicy;
	/** Receives a failure that cannot be shown as part of the run any more; must not throw. */
	reportError?(error: unknown): void;
}

/** What the loop has told its listeners so far: enough to close a run that failed midway. */
interface RunState {
	added: AgentMessage[];
	agentStarted: boolean;
	turnOpen: boolean;
	agentEnded: boolean;
	/** Tool calls of the last reply that have no result yet, by id (their start event went out when true). */
	unanswered: Map<string, { call: ToolCall; started: boolean }>;
}

export interface LoopOptions {
	/** Skip the steering poll before the first model call (the run was started from steering). */
	skipInitialSteering?: boolean;
	/**
	 * Start by carrying out these tool calls of `assistant` (the conversation's last reply, whose
	 * run ended before they had results), then go on as after any tool calls.
	 */
	resume?: { assistant: AssistantMessage; calls: ToolCall[] };
}

/**
 * One agent run: emits agent_start, the prompts, then turns (model call, tool calls) until the
 * model answers without tool calls and no steering or follow-up is waiting; ends with agent_end.
 * An error or aborted reply ends the run. Never throws: failures become error replies, and a
 * failure outside them (a listener that throws, a hook that fails) ends the run with an error
 * reply too, after error results for the tool calls it left unanswered, so that every
 * agent_start gets its agent_end and every tool_execution_start its tool_execution_end.
 * Returns the messages this run added to the conversation.
 */
export async function runLoop(
	run: LoopRun,
	prompts: AgentMessage[],
	options: LoopOptions = {},
): Promise<AgentMessage[]> {
	const state: RunState = {
		added: [],
		agentStarted: false,
		turnOpen: false,
		agentEnded: false,
		unanswered: new Map(),
	};
	const emit: Emit = (event: AgentEvent) => {
		track(state, event);
		const pending = run.sink(event);
		return pending ? pending : undefined;
	};
	const append = (message: AgentMessage) => {
		run.messages.push(message);
		state.added.push(message);
		if (message.role === "toolResult") state.unanswered.delete(message.toolCallId);
		if (message.role === "assistant") {
			state.unanswered.clear();
			for (const block of message.content) {
				if (block.type === "toolCall") state.unanswered.set(block.id, { call: block, started: false });
			}
		}
	};
	try {
		await runTurns(run, prompts, options, { emit, append, added: state.added, unanswered: state.unanswered });
	} catch (error) {
		await endAfterFailure(run, state, append, error);
	}
	return state.added;
}

function track(state: RunState, event: AgentEvent): void {
	if (event.type === "agent_start") state.agentStarted = true;
	else if (event.type === "turn_start") state.turnOpen = true;
	else if (event.type === "turn_end") state.turnOpen = false;
	else if (event.type === "agent_end") state.agentEnded = true;
	else if (event.type === "tool_execution_start") {
		const entry = state.unanswered.get(event.toolCallId);
		if (entry) entry.started = true;
	} else if (event.type === "tool_execution_end") {
		const entry = state.unanswered.get(event.toolCallId);
		if (entry) entry.started = false;
	}
}

/** The turns of a run; `append` adds a message to the conversation and to `added`. */
async function runTurns(
	run: LoopRun,
	prompts: AgentMessage[],
	options: LoopOptions,
	io: {
		emit: Emit;
		append: (message: AgentMessage) => void;
		added: AgentMessage[];
		unanswered: RunState["unanswered"];
	},
): Promise<void> {
	const { emit, append, added } = io;
	const deliver = async (message: AgentMessage) => {
		await emit({ type: "message_start", message });
		append(message);
		await emit({ type: "message_end", message });
	};

	/** Carries out a reply's tool calls and ends its turn. */
	const callTools = async (assistant: AssistantMessage, calls: ToolCall[], tools: AgentTool[]) => {
		const toolResults =
			calls.length === 0
				? []
				: await executeToolCalls({ config: run.config, tools, assistant, calls, signal: run.signal, emit, append });
		await emit({ type: "turn_end", message: assistant, toolResults });
		if (calls.length > 0 && !run.signal.aborted) await run.config.afterToolBatch?.(run.messages, run.signal);
	};

	await emit({ type: "agent_start" });
	await emit({ type: "turn_start" });
	for (const prompt of prompts) await deliver(prompt);
	let firstTurn = true;
	if (options.resume) {
		const { assistant, calls } = options.resume;
		// The reply is already in the conversation: only its calls without a result are carried out.
		for (const call of calls) io.unanswered.set(call.id, { call, started: false });
		await callTools(assistant, calls, turnSetup(run.config).tools);
		firstTurn = false;
	}
	let pending = options.skipInitialSteering || run.signal.aborted ? [] : pollSteering(run);

	for (;;) {
		let moreToolCalls = true;
		while (moreToolCalls || pending.length > 0) {
			if (!firstTurn) await emit({ type: "turn_start" });
			firstTurn = false;
			for (const message of pending) await deliver(message);
			pending = [];

			// One view of model, level, prompt and tools per turn: the request and its tool calls agree.
			if (run.config.beforeTurn && !run.signal.aborted) await run.config.beforeTurn(run.signal);
			const turn = turnSetup(run.config);
			const assistant = await replyWithRetry(run, turn, emit);
			append(assistant);
			if (assistant.stopReason === "error" || assistant.stopReason === "aborted") {
				await emit({ type: "turn_end", message: assistant, toolResults: [] });
				await emit({ type: "agent_end", messages: added });
				return;
			}
			const calls = assistant.content.filter((block): block is ToolCall => block.type === "toolCall");
			await callTools(assistant, calls, turn.tools);
			moreToolCalls = calls.length > 0;
			// After an abort the next call ends at once with an aborted reply; queued messages wait.
			pending = run.signal.aborted ? [] : pollSteering(run);
		}
		if (run.signal.aborted) break;
		pending = run.config.getFollowUpMessages?.() ?? [];
		if (pending.length === 0) break;
	}
	await emit({ type: "agent_end", messages: added });
}

/**
 * Closes a run that threw: error results for the tool calls left without one (the model and the
 * provider need a result for each), an error reply naming the failure, turn_end and agent_end.
 * Listeners that throw again are reported, not thrown.
 */
async function endAfterFailure(
	run: LoopRun,
	state: RunState,
	append: (message: AgentMessage) => void,
	error: unknown,
): Promise<void> {
	if (state.agentEnded) {
		run.reportError?.(error);
		return;
	}
	const emit = async (event: AgentEvent) => {
		track(state, event);
		try {
			await run.sink(event);
		} catch (listenerError) {
			run.reportError?.(listenerError);
		}
	};
	const reason = `The run stopped on an internal error: ${describeError(error)}`;
	if (!state.agentStarted) await emit({ type: "agent_start" });
	if (!state.turnOpen) await emit({ type: "turn_start" });
	const toolResults: ToolResultMessage[] = [];
	for (const { call, started } of [...state.unanswered.values()]) {
		const result = { content: [{ type: "text" as const, text: reason }], details: {} };
		if (started) {
			await emit({ type: "tool_execution_end", toolCallId: call.id, toolName: call.name, result, isError: true });
		}
		const message: ToolResultMessage = {
			role: "toolResult",
			toolCallId: call.id,
			toolName: call.name,
			content: result.content,
			details: {},
			isError: true,
			timestamp: Date.now(),
		};
		await emit({ type: "message_start", message });
		append(message);
		await emit({ type: "message_end", message });
		toolResults.push(message);
	}
	const reply = failure(run, run.config.model, reason);
	await emit({ type: "message_start", message: { ...reply, content: [] } });
	append(reply);
	await emit({ type: "message_end", message: reply });
	await emit({ type: "turn_end", message: reply, toolResults });
	await emit({ type: "agent_end", messages: state.added });
}

/** What one turn uses: read from the config once, at the turn's start. */
interface TurnSetup {
	model: Model;
	thinkingLevel: ThinkingLevel;
	systemPrompt: string | undefined;
	tools: AgentTool[];
}

function turnSetup(config: AgentLoopConfig): TurnSetup {
	return {
		model: config.model,
		thinkingLevel: config.thinkingLevel,
		systemPrompt: config.systemPrompt,
		tools: config.tools,
	};
}

function pollSteering(run: LoopRun): AgentMessage[] {
	return run.config.getSteeringMessages?.() ?? [];
}

/** Streams a reply, retrying transient failures per the retry policy. */
async function replyWithRetry(run: LoopRun, turn: TurnSetup, emit: Emit): Promise<AssistantMessage> {
	let attempt = 0;
	for (;;) {
		const message = await streamReply(run, turn, emit);
		const retry = run.retry;
		if (!retry || run.signal.aborted || !retry.isRetryable(message)) {
			if (attempt > 0) {
				const success = message.stopReason !== "error" && message.stopReason !== "aborted";
				await emit({
					type: "auto_retry_end",
					success,
					attempt,
					...(success ? {} : { finalError: message.errorMessage ?? message.stopReason }),
				});
			}
			return message;
		}
		const errorMessage = message.errorMessage ?? "error";
		if (attempt >= retry.settings.maxRetries) {
			await emit({ type: "auto_retry_end", success: false, attempt, finalError: errorMessage });
			return message;
		}
		attempt++;
		const delayMs = retry.delayFor(attempt, message);
		await emit({ type: "auto_retry_start", attempt, maxAttempts: retry.settings.maxRetries, delayMs, errorMessage });
		const outcome = await retry.wait(delayMs, run.signal);
		if (outcome === "cancelled") {
			await emit({ type: "auto_retry_end", success: false, attempt, finalError: "Retry cancelled" });
			return message;
		}
		// "aborted": the next request ends at once with an aborted reply, which ends the run.
	}
}

/** Streams one reply and emits message_start, message_update per delta, message_end. */
async function streamReply(run: LoopRun, turn: TurnSetup, emit: Emit): Promise<AssistantMessage> {
	const { config, signal } = run;
	const model = turn.model;
	let final: AssistantMessage | undefined;
	let started = false;
	try {
		const context = config.transformContext ? await config.transformContext(run.messages, signal) : run.messages;
		const messages = (config.convertToLlm ?? convertToLlm)(context);
		const requestOptions: StreamOptions = (await config.requestOptions?.(model)) ?? {};
		const stream = config.streamFunction(
			model,
			{
				systemPrompt: turn.systemPrompt,
				messages,
				tools: turn.tools.map(({ name, description, parameters }) => ({ name, description, parameters })),
			},
			{ ...requestOptions, signal, reasoning: turn.thinkingLevel === "off" ? undefined : turn.thinkingLevel },
		);
		for await (const event of stream) {
			if (!started) {
				started = true;
				const partial = stream.partial;
				await emit({
					type: "message_start",
					message: partial ? { ...partial, content: [...partial.content] } : blank(model),
				});
				if (event.type === "start") continue;
			}
			if (event.type === "done" || event.type === "error") final = event.message;
			const partial = stream.partial;
			if (partial) await emit({ type: "message_update", message: partial, assistantMessageEvent: event });
			if (final) break;
		}
	} catch (error) {
		// A stream function that throws (before or while streaming) still says what failed, as data.
		final = { ...failure(run, model, describeError(error)), error: errorFromThrown(error) };
	}
	final ??= failure(run, model, "The model stream ended without a reply");
	if (!started) await emit({ type: "message_start", message: { ...final, content: [] } });
	await emit({ type: "message_end", message: final });
	return final;
}

function blank(model: Model): AssistantMessage {
	return {
		role: "assistant",
		content: [],
		api: model.api,
		provider: model.provider,
		model: model.id,
		usage: emptyUsage(),
		stopReason: "stop",
		timestamp: Date.now(),
	};
}

function failure(run: LoopRun, model: Model, errorMessage: string): AssistantMessage {
	return { ...blank(model), stopReason: run.signal.aborted ? "aborted" : "error", errorMessage };
}
