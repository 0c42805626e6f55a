import type { ContentBlock, SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import type { AgentToolResult } from "../agent/types.js";
import type { ImageContent, TextContent, ToolCall } from "../llm/types.js";
import { presentToolCall, toolCallPath } from "./tool-presentation.js";

/** What the tool call mapping needs from its session. */
export interface ToolCallHost {
	cwd(): string;
	send(update: SessionUpdate): Promise<void>;
	/** The text of a file as the tools see it (the editor's buffer or the disk); undefined when it does not exist. */
	readText(path: string): Promise<string | undefined>;
}

const FILE_CHANGING_TOOLS = new Set(["edit", "write"]);

/** A tool result's text and images as ACP tool call content. */
export function resultContent(content: readonly (TextContent | ImageContent)[]): ToolCallContent[] {
	return content.flatMap((block): ToolCallContent[] => {
		if (block.type === "text") return block.text === "" ? [] : [{ type: "content", content: textBlock(block.text) }];
		return [{ type: "content", content: { type: "image", data: block.data, mimeType: block.mimeType } }];
	});
}

export function textBlock(text: string): ContentBlock {
	return { type: "text", text };
}

function fenced(text: string): string {
	const fence = text.includes("```") ? "````" : "```";
	return `${fence}\n${text.replace(/\n$/, "")}\n${fence}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The line an edit's details name as its first change. */
function firstChangedLine(details: unknown): number | undefined {
	if (!isRecord(details)) return undefined;
	const line = details.firstChangedLine;
	return typeof line === "number" && Number.isInteger(line) && line > 0 ? line : undefined;
}

/**
 * Turns the tool events of a session into `tool_call` and `tool_call_update` notifications: the
 * call is announced while the model streams it (pending), then given its kind, title, locations
 * and raw input, marked in progress when it runs, updated with streamed output, and finished with
 * its result: a diff of the whole file for edits and writes, the terminal for commands run in the
 * editor's terminal, the tool's text and images otherwise.
 */
export class ToolCallTracker {
	private readonly announced = new Set<string>();
	/** The text a changing call's file had before it ran (null: the file did not exist). */
	private readonly before = new Map<string, string | null>();
	private readonly terminals = new Map<string, string>();
	/** The arguments of calls that are running. */
	private readonly running = new Map<string, Record<string, unknown>>();

	constructor(private readonly host: ToolCallHost) {}

	/** The model began a call: shown at once, before its arguments are complete. */
	streamStarted(toolCallId: string, toolName: string): void {
		if (this.announced.has(toolCallId)) return;
		this.announced.add(toolCallId);
		const { kind } = presentToolCall(toolName, {}, this.host.cwd());
		void this.host.send({ sessionUpdate: "tool_call", toolCallId, title: toolName, kind, status: "pending" });
	}

	/** The model finished a call's arguments. */
	streamEnded(call: ToolCall): void {
		this.describe(call.id, call.name, call.arguments, "pending");
	}

	async executionStarted(toolCallId: string, toolName: string, args: Record<string, unknown>): Promise<void> {
		this.describe(toolCallId, toolName, args, "in_progress");
		this.running.set(toolCallId, args);
		if (!FILE_CHANGING_TOOLS.has(toolName)) return;
		const path = toolCallPath(args, this.host.cwd());
		if (path === undefined) return;
		const text = await this.host.readText(path);
		this.before.set(toolCallId, text ?? null);
	}

	/** Resolves once the update is written: the tool's next updates are coalesced until then. */
	executionUpdated(toolCallId: string, partial: AgentToolResult): Promise<void> | undefined {
		if (this.terminals.has(toolCallId)) return undefined;
		const text = partial.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
		if (text === "") return undefined;
		return this.host.send({
			sessionUpdate: "tool_call_update",
			toolCallId,
			content: [{ type: "content", content: textBlock(fenced(text)) }],
		});
	}

	/** The command of this call runs in the editor's terminal `terminalId`: the call shows it. */
	attachTerminal(toolCallId: string, terminalId: string): Promise<void> {
		this.terminals.set(toolCallId, terminalId);
		return this.host.send({
			sessionUpdate: "tool_call_update",
			toolCallId,
			content: [{ type: "terminal", terminalId }],
		});
	}

	async executionEnded(toolCallId: string, toolName: string, result: AgentToolResult, isError: boolean): Promise<void> {
		const args = this.running.get(toolCallId) ?? {};
		this.running.delete(toolCallId);
		const update: SessionUpdate = {
			sessionUpdate: "tool_call_update",
			toolCallId,
			status: isError ? "failed" : "completed",
		};
		const terminalId = this.terminals.get(toolCallId);
		this.terminals.delete(toolCallId);
		const before = this.before.get(toolCallId);
		this.before.delete(toolCallId);
		const path = toolCallPath(args, this.host.cwd());
		if (terminalId !== undefined) {
			update.content = [{ type: "terminal", terminalId }, ...(isError ? resultContent(result.content) : [])];
		} else if (!isError && FILE_CHANGING_TOOLS.has(toolName) && path !== undefined) {
			const after = await this.host.readText(path);
			if (after !== undefined) update.content = [{ type: "diff", path, oldText: before ?? null, newText: after }];
			const line = firstChangedLine(result.details);
			update.locations = line === undefined ? [{ path }] : [{ path, line }];
		} else {
			update.content = resultContent(result.content);
		}
		if (result.details !== undefined) update.rawOutput = result.details;
		await this.host.send(update);
	}

	/**
	 * A call of a replayed conversation: announced whole, then finished with the stored result.
	 * Edits and writes show the diff their arguments describe (the file's whole text then is not stored).
	 */
	async replay(call: ToolCall, result: { content: (TextContent | ImageContent)[]; isError: boolean } | undefined) {
		this.describe(call.id, call.name, call.arguments, "pending");
		if (!result) return;
		const update: SessionUpdate = {
			sessionUpdate: "tool_call_update",
			toolCallId: call.id,
			status: result.isError ? "failed" : "completed",
			content: resultContent(result.content),
		};
		const diff = result.isError ? undefined : argumentDiff(call, this.host.cwd());
		if (diff) update.content = [diff];
		await this.host.send(update);
	}

	private describe(
		toolCallId: string,
		toolName: string,
		args: Record<string, unknown>,
		status: "pending" | "in_progress",
	) {
		const { kind, title, locations } = presentToolCall(toolName, args, this.host.cwd());
		const fields = { toolCallId, title, kind, status, locations, rawInput: args };
		if (this.announced.has(toolCallId)) {
			void this.host.send({ sessionUpdate: "tool_call_update", ...fields });
			return;
		}
		this.announced.add(toolCallId);
		void this.host.send({ sessionUpdate: "tool_call", ...fields });
	}
}

/** The diff an edit or write call's arguments describe. */
function argumentDiff(call: ToolCall, cwd: string): ToolCallContent | undefined {
	const path = toolCallPath(call.arguments, cwd);
	if (path === undefined) return undefined;
	const args = call.arguments;
	if (call.name === "write" && typeof args.content === "string") {
		return { type: "diff", path, oldText: null, newText: args.content };
	}
	if (call.name !== "edit") return undefined;
	const pairs = Array.isArray(args.edits) ? args.edits : [args];
	const olds: string[] = [];
	const news: string[] = [];
	for (const pair of pairs) {
		if (!isRecord(pair) || typeof pair.oldText !== "string" || typeof pair.newText !== "string") return undefined;
		olds.push(pair.oldText);
		news.push(pair.newText);
	}
	return { type: "diff", path, oldText: olds.join("\n…\n"), newText: news.join("\n…\n") };
}
