import type { AssistantMessage, ToolCall, ToolResultMessage } from "../llm/types.js";
import type { AgentMessage } from "./messages.js";
import { ToolUpdates } from "./tool-updates.js";
import type { AgentEvent, AgentLoopConfig, AgentTool, AgentToolResult, ToolCallContext } from "./types.js";
import { validateArguments } from "./validation.js";

export const TRUNCATED_CALL_TEXT =
	"This tool call was not executed: the reply hit the output token limit, so its arguments may be cut off. Issue the call again, smaller if needed.";
export const ABORTED_CALL_TEXT = "Operation aborted";

export type Emit = (event: AgentEvent) => Promise<void> | undefined;

interface Outcome {
	result: AgentToolResult;
	isError: boolean;
}

interface PreparedCall {
	call: ToolCall;
	context: ToolCallContext;
	tool?: AgentTool;
	/** Set when the call ends without running (unknown tool, invalid arguments, blocked, aborted). */
	outcome?: Outcome;
}

export interface ToolBatch {
	config: AgentLoopConfig;
	/** The tools offered to the model in the request that produced these calls. */
	tools: readonly AgentTool[];
	assistant: AssistantMessage;
	calls: ToolCall[];
	signal: AbortSignal;
	emit: Emit;
	/** Receives each result message, in call order, after its message_start/message_end. */
	append(message: AgentMessage): void;
}

function errorOutcome(text: string): Outcome {
	return { result: { content: [{ type: "text", text }], details: {} }, isError: true };
}

function errorText(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

/**
 * Runs the tool calls of one assistant reply. Parallel by default (results still come out in call
 * order); sequential when configured or when any called tool asks for it. Every failure becomes an
 * error result the model can read; nothing here throws.
 */
export async function executeToolCalls(batch: ToolBatch): Promise<ToolResultMessage[]> {
	const { config, calls } = batch;
	const tools = new Map(batch.tools.map((tool) => [tool.name, tool]));
	const sequential =
		config.toolExecution === "sequential" || calls.some((call) => tools.get(call.name)?.executionMode === "sequential");
	const results: ToolResultMessage[] = [];
	if (sequential) {
		for (const call of calls) {
			await started(batch, call);
			const prepared = await approve(batch, await prepare(batch, call, tools));
			const outcome = prepared.outcome ?? (await run(batch, prepared));
			await ended(batch, call, outcome);
			results.push(await deliver(batch, call, outcome));
		}
		return results;
	}
	const running: Promise<Outcome>[] = [];
	for (const call of calls) {
		await started(batch, call);
		const prepared = await prepare(batch, call, tools);
		if (prepared.outcome) {
			await ended(batch, call, prepared.outcome);
			running.push(Promise.resolve(prepared.outcome));
		} else {
			// Approvals of the batch's calls are asked together; each call runs once it is approved.
			running.push(
				approve(batch, prepared).then(async (approved) => {
					const outcome = approved.outcome ?? (await run(batch, approved));
					await ended(batch, call, outcome);
					return outcome;
				}),
			);
		}
	}
	const outcomes = await Promise.all(running);
	for (let index = 0; index < calls.length; index++) {
		results.push(await deliver(batch, calls[index] as ToolCall, outcomes[index] as Outcome));
	}
	return results;
}

async function started(batch: ToolBatch, call: ToolCall): Promise<void> {
	await batch.emit({ type: "tool_execution_start", toolCallId: call.id, toolName: call.name, args: call.arguments });
}

async function ended(batch: ToolBatch, call: ToolCall, outcome: Outcome): Promise<void> {
	await batch.emit({
		type: "tool_execution_end",
		toolCallId: call.id,
		toolName: call.name,
		result: outcome.result,
		isError: outcome.isError,
	});
}

async function prepare(batch: ToolBatch, call: ToolCall, tools: Map<string, AgentTool>): Promise<PreparedCall> {
	const context: ToolCallContext = { assistantMessage: batch.assistant, toolCall: call, args: call.arguments };
	if (batch.assistant.stopReason === "length") return { call, context, outcome: errorOutcome(TRUNCATED_CALL_TEXT) };
	if (batch.signal.aborted) return { call, context, outcome: errorOutcome(ABORTED_CALL_TEXT) };
	const tool = tools.get(call.name);
	if (!tool) return { call, context, outcome: errorOutcome(`Tool ${call.name} not found`) };
	const raw = preparedArguments(tool, call.arguments);
	if (typeof raw === "string") return { call, context, outcome: errorOutcome(raw) };
	let validation: Awaited<ReturnType<typeof validateArguments>>;
	try {
		validation = await validateArguments(tool.parameters, raw);
	} catch (error) {
		// Arguments the validator cannot handle (see json-depth.ts) are the model's problem to fix.
		return { call, context, outcome: errorOutcome(`Invalid arguments: ${errorText(error)}`) };
	}
	if (!validation.ok) return { call, context, outcome: errorOutcome(validation.message) };
	context.args = validation.value;
	if (batch.config.beforeToolCall) {
		try {
			const verdict = await batch.config.beforeToolCall(context, batch.signal);
			if (verdict?.block)
				return { call, context, outcome: errorOutcome(verdict.reason || "Tool execution was blocked") };
		} catch (error) {
			return { call, context, outcome: errorOutcome(errorText(error)) };
		}
	}
	if (batch.signal.aborted) return { call, context, outcome: errorOutcome(ABORTED_CALL_TEXT) };
	return { call, context, tool };
}

/** The arguments after the tool's `prepareArguments`, or the error text when it failed. */
function preparedArguments(tool: AgentTool, args: Record<string, unknown>): Record<string, unknown> | string {
	if (!tool.prepareArguments) return args;
	try {
		const prepared = tool.prepareArguments(args);
		if (typeof prepared === "object" && prepared !== null && !Array.isArray(prepared))
			return prepared as Record<string, unknown>;
		return `Tool ${tool.name}: prepareArguments must return an object`;
	} catch (error) {
		return `Tool ${tool.name}: prepareArguments failed: ${errorText(error)}`;
	}
}

/** Asks `approveToolCall` about a prepared call; a block (or a throw, or an abort meanwhile) ends it. */
async function approve(batch: ToolBatch, prepared: PreparedCall): Promise<PreparedCall> {
	const hook = batch.config.approveToolCall;
	const tool = prepared.tool;
	if (!hook || !tool || prepared.outcome) return prepared;
	try {
		const verdict = await hook({ ...prepared.context, tool }, batch.signal);
		if (verdict?.block)
			return { ...prepared, outcome: errorOutcome(verdict.reason || "Tool execution was not approved") };
	} catch (error) {
		return { ...prepared, outcome: errorOutcome(errorText(error)) };
	}
	if (batch.signal.aborted) return { ...prepared, outcome: errorOutcome(ABORTED_CALL_TEXT) };
	return prepared;
}

async function run(batch: ToolBatch, prepared: PreparedCall): Promise<Outcome> {
	const { call, context, tool } = prepared;
	if (!tool) return errorOutcome(`Tool ${call.name} not found`);
	// While the listeners have not taken an update (a slow reader), newer ones replace each other.
	const updates = new ToolUpdates((partialResult: AgentToolResult) =>
		batch.emit({
			type: "tool_execution_update",
			toolCallId: call.id,
			toolName: call.name,
			args: call.arguments,
			partialResult,
		}),
	);
	let outcome: Outcome;
	try {
		const result = await tool.execute(call.id, context.args, batch.signal, (partial) => updates.push(partial));
		outcome = { result, isError: result.isError === true };
	} catch (error) {
		outcome = errorOutcome(errorText(error));
	}
	// A listener that failed on an update fails the run, as on any other event of it.
	await updates.close();
	if (!batch.config.afterToolCall) return outcome;
	try {
		const override = await batch.config.afterToolCall({ ...context, ...outcome }, batch.signal);
		if (!override) return outcome;
		return {
			result: {
				...outcome.result,
				...(override.content !== undefined ? { content: override.content } : {}),
				...(override.details !== undefined ? { details: override.details } : {}),
			},
			isError: override.isError ?? outcome.isError,
		};
	} catch (error) {
		return errorOutcome(errorText(error));
	}
}

async function deliver(batch: ToolBatch, call: ToolCall, outcome: Outcome): Promise<ToolResultMessage> {
	const message: ToolResultMessage = {
		role: "toolResult",
		toolCallId: call.id,
		toolName: call.name,
		content: outcome.result.content,
		details: outcome.result.details,
		isError: outcome.isError,
		timestamp: Date.now(),
	};
	await batch.emit({ type: "message_start", message });
	batch.append(message);
	await batch.emit({ type: "message_end", message });
	return message;
}
