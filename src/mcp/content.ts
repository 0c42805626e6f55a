import type { CallToolResult, ContentBlock, GetPromptResult } from "@modelcontextprotocol/sdk/types.js";
import type { AgentToolResult } from "../agent/types.js";
import type { ImageContent, TextContent } from "../llm/types.js";

/** What a call returned: the current result shape, or the `toolResult` of protocol 2024-10-07. */
export type CallOutcome = CallToolResult | { toolResult: unknown };

/** Details kept on an MCP tool result (not sent to the model). */
export interface McpToolDetails {
	server: string;
	tool: string;
	structuredContent?: Record<string, unknown>;
}

function json(value: unknown): string {
	return JSON.stringify(value, null, 2) ?? String(value);
}

/**
 * One content block as the model sees it: text as text, images as images, an embedded resource as
 * its text (a binary one as a line naming it), a resource link and audio as a line naming them.
 */
export function convertBlock(block: ContentBlock): TextContent | ImageContent {
	switch (block.type) {
		case "text":
			return { type: "text", text: block.text };
		case "image":
			return { type: "image", data: block.data, mimeType: block.mimeType };
		case "resource": {
			const resource = block.resource;
			if ("text" in resource && typeof resource.text === "string") return { type: "text", text: resource.text };
			return {
				type: "text",
				text: `[binary resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ""}]`,
			};
		}
		case "resource_link":
			return { type: "text", text: `[resource ${block.uri}${block.description ? `: ${block.description}` : ""}]` };
		case "audio":
			return { type: "text", text: `[audio (${block.mimeType}), not shown]` };
	}
}

/**
 * A call's result as an agent tool result: the content blocks converted (`structuredContent` as
 * JSON text when there is no content), `isError` kept, `structuredContent` also in the details.
 */
export function toToolResult(outcome: CallOutcome, details: McpToolDetails): AgentToolResult<McpToolDetails> {
	if ("toolResult" in outcome) return { content: [{ type: "text", text: json(outcome.toolResult) }], details };
	const content = outcome.content.map(convertBlock);
	const structured = outcome.structuredContent;
	if (structured !== undefined) details.structuredContent = structured;
	if (content.length === 0 && structured !== undefined) content.push({ type: "text", text: json(structured) });
	if (content.length === 0) content.push({ type: "text", text: outcome.isError ? "(the tool failed)" : "(no output)" });
	const result: AgentToolResult<McpToolDetails> = { content, details };
	if (outcome.isError === true) result.isError = true;
	return result;
}

/** A prompt's messages as the text of one user message (text blocks and resource text, in order). */
export function promptText(result: GetPromptResult): string {
	const parts: string[] = [];
	for (const message of result.messages) {
		const block = convertBlock(message.content);
		parts.push(block.type === "text" ? block.text : `[image (${block.mimeType}), not included]`);
	}
	return parts.join("\n\n");
}
