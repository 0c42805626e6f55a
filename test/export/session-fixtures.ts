import type { AgentMessage } from "../../src/agent/messages.js";
import type { SessionExportInput } from "../../src/export/index.js";
import type { AssistantMessage, ToolCall, Usage } from "../../src/llm/types.js";
import type { NewEntry, SessionEntry, SessionHeader } from "../../src/session/types.js";

export const HEADER: SessionHeader = {
	type: "session",
	version: 3,
	id: "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
	timestamp: "2026-01-02T03:04:05.678Z",
	cwd: "/home/dev/project",
};

/** Entries get increasing timestamps in creation order, one second apart. */
export class EntryBuilder {
	readonly entries: SessionEntry[] = [];
	private clock = Date.parse("2026-01-02T03:05:00.000Z");

	private add(id: string, parentId: string | null, fields: NewEntry): void {
		this.clock += 1000;
		this.entries.push({ ...fields, id, parentId, timestamp: new Date(this.clock).toISOString() });
	}

	message(id: string, parentId: string | null, message: AgentMessage): this {
		this.add(id, parentId, { type: "message", message });
		return this;
	}

	user(id: string, parentId: string | null, text: string): this {
		return this.message(id, parentId, { role: "user", content: text, timestamp: this.clock });
	}

	assistant(
		id: string,
		parentId: string | null,
		content: AssistantMessage["content"],
		extra: Partial<AssistantMessage> = {},
	): this {
		return this.message(id, parentId, {
			role: "assistant",
			content,
			api: "anthropic-messages",
			provider: "anthropic",
			model: "claude-test",
			usage: usage(0, 0, 0, 0, 0),
			stopReason: content.some((block) => block.type === "toolCall") ? "toolUse" : "stop",
			timestamp: this.clock,
			...extra,
		});
	}

	toolResult(
		id: string,
		parentId: string | null,
		call: ToolCall,
		text: string,
		isError = false,
		details?: unknown,
	): this {
		return this.message(id, parentId, {
			role: "toolResult",
			toolCallId: call.id,
			toolName: call.name,
			content: [{ type: "text", text }],
			details,
			isError,
			timestamp: this.clock,
		});
	}

	entry(id: string, parentId: string | null, fields: NewEntry): this {
		this.add(id, parentId, fields);
		return this;
	}

	/** An entry of a type this program does not know. */
	foreign(id: string, parentId: string | null, fields: Record<string, unknown> & { type: string }): this {
		this.clock += 1000;
		this.entries.push({ ...fields, id, parentId, timestamp: new Date(this.clock).toISOString() });
		return this;
	}

	input(leafId: string | null, extra: Partial<SessionExportInput> = {}): SessionExportInput {
		return { header: HEADER, entries: this.entries, leafId, ...extra };
	}
}

export function usage(input: number, output: number, cacheRead: number, cacheWrite: number, cost: number): Usage {
	return {
		input,
		output,
		cacheRead,
		cacheWrite,
		totalTokens: input + output + cacheRead + cacheWrite,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost },
	};
}

export function toolCall(id: string, name: string, args: Record<string, unknown>): ToolCall {
	return { type: "toolCall", id, name, arguments: args };
}

export function text(value: string): { type: "text"; text: string } {
	return { type: "text", text: value };
}

/** The inner HTML of the element with this id (sections holding articles are never nested in each other). */
export function sectionHtml(html: string, id: string): string {
	const start = html.indexOf(`id="${id}"`);
	if (start === -1) throw new Error(`no element with id ${id}`);
	const end = html.indexOf("</section>", start);
	return html.slice(start, end);
}

/** Ids of the articles in a piece of HTML, in document order. */
export function articleIds(html: string): string[] {
	return [...html.matchAll(/<article [^>]*data-id="([^"]*)"/g)].map((match) => match[1] as string);
}

/** The base64 session data embedded in the page, decoded. */
export function embeddedData(html: string): unknown {
	const match = /<script type="application\/json" id="session-data">([^<]*)<\/script>/.exec(html);
	if (!match?.[1]) throw new Error("no session data");
	return JSON.parse(Buffer.from(match[1], "base64").toString("utf8"));
}
