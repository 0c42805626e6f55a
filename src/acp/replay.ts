import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { type AgentMessage, bashExecutionText } from "../agent/messages.js";
import type { ImageContent, TextContent, ToolCall } from "../llm/types.js";
import { randomUuid } from "../platform/random.js";
import type { CustomMessageEntry, SessionEntry } from "../session/types.js";
import { resultContent, type ToolCallTracker, textBlock } from "./tool-calls.js";

type Send = (update: SessionUpdate) => Promise<void>;

interface StoredResult {
	content: (TextContent | ImageContent)[];
	isError: boolean;
}

function contentChunks(
	kind: "user_message_chunk" | "agent_message_chunk",
	content: string | (TextContent | ImageContent)[],
	messageId: string,
): SessionUpdate[] {
	const blocks = typeof content === "string" ? [{ type: "text" as const, text: content }] : content;
	return blocks.flatMap((block): SessionUpdate[] => {
		if (block.type === "text") {
			return block.text === "" ? [] : [{ sessionUpdate: kind, content: textBlock(block.text), messageId }];
		}
		return [{ sessionUpdate: kind, content: { type: "image", data: block.data, mimeType: block.mimeType }, messageId }];
	});
}

/**
 * Sends the active branch of a session as `session/update` notifications, oldest first: user
 * messages as user chunks, replies as thought and message chunks, tool calls with their final
 * status and content, commands the user ran as finished execute calls, compactions and branch
 * summaries as notes. Resolves once every update has been written.
 */
export async function replayBranch(
	entries: readonly SessionEntry[],
	send: Send,
	tools: ToolCallTracker,
): Promise<void> {
	const results = new Map<string, StoredResult>();
	for (const entry of entries) {
		if (entry.type === "message" && isMessage(entry.message) && entry.message.role === "toolResult") {
			results.set(entry.message.toolCallId, { content: entry.message.content, isError: entry.message.isError });
		}
	}
	for (const entry of entries) {
		if (entry.type === "message" && isMessage(entry.message)) await replayMessage(entry.message, send, tools, results);
		else if (entry.type === "compaction") {
			await send({
				sessionUpdate: "agent_message_chunk",
				content: textBlock("_The conversation was compacted here._"),
				messageId: randomUuid(),
			});
		} else if (isShownCustomMessage(entry)) {
			for (const update of contentChunks("agent_message_chunk", entry.content, randomUuid())) await send(update);
		}
	}
	await send({ sessionUpdate: "session_info_update", updatedAt: lastTimestamp(entries) });
}

function isShownCustomMessage(entry: SessionEntry): entry is CustomMessageEntry {
	if (entry.type !== "custom_message" || !("display" in entry) || entry.display !== true) return false;
	return typeof entry.content === "string" || Array.isArray(entry.content);
}

function isMessage(value: unknown): value is AgentMessage {
	return typeof value === "object" && value !== null && "role" in value;
}

function lastTimestamp(entries: readonly SessionEntry[]): string | null {
	const last = entries[entries.length - 1];
	return last ? last.timestamp : null;
}

async function replayMessage(
	message: AgentMessage,
	send: Send,
	tools: ToolCallTracker,
	results: ReadonlyMap<string, StoredResult>,
): Promise<void> {
	const messageId = randomUuid();
	switch (message.role) {
		case "user":
			for (const update of contentChunks("user_message_chunk", message.content, messageId)) await send(update);
			return;
		case "assistant":
			for (const block of message.content) {
				if (block.type === "text" && block.text !== "") {
					await send({ sessionUpdate: "agent_message_chunk", content: textBlock(block.text), messageId });
				} else if (block.type === "thinking" && block.thinking !== "" && !block.redacted) {
					await send({ sessionUpdate: "agent_thought_chunk", content: textBlock(block.thinking), messageId });
				} else if (block.type === "toolCall") {
					await tools.replay(block, results.get(block.id));
				}
			}
			return;
		case "custom":
			if (message.display)
				for (const update of contentChunks("agent_message_chunk", message.content, messageId)) await send(update);
			return;
		case "bashExecution":
			await replayUserCommand(message.command, bashExecutionText(message), message.exitCode, send);
			return;
		case "branchSummary":
			await send({
				sessionUpdate: "agent_message_chunk",
				content: textBlock(`_Summary of the branch left:_\n\n${message.summary}`),
				messageId,
			});
			return;
		case "toolResult":
			return;
	}
}

async function replayUserCommand(
	command: string,
	text: string,
	exitCode: number | undefined,
	send: Send,
): Promise<void> {
	const call: ToolCall = { type: "toolCall", id: `user-bash-${randomUuid()}`, name: "bash", arguments: { command } };
	await send({
		sessionUpdate: "tool_call",
		toolCallId: call.id,
		title: `Run ${command.split("\n")[0] ?? command}`,
		kind: "execute",
		status: exitCode === 0 ? "completed" : "failed",
		rawInput: call.arguments,
		content: resultContent([{ type: "text", text }]),
	});
}
