import { isKnownEntry, type SessionEntry } from "../session/types.js";
import { finiteOrZero, isRecord } from "./html-text.js";

export interface SessionTotals {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	cost: number;
	/** Message entries per role (user, assistant, toolResult, bashExecution, custom, branchSummary). */
	messagesByRole: Map<string, number>;
	toolCalls: number;
	entries: number;
	/** `provider/model` of every model the session used or switched to, in order of first use. */
	models: string[];
}

/** Usage and cost summed over every assistant message of the whole tree, not only the active branch. */
export function sessionTotals(entries: readonly SessionEntry[]): SessionTotals {
	const totals: SessionTotals = {
		input: 0,
		output: 0,
		cacheRead: 0,
		cacheWrite: 0,
		cost: 0,
		messagesByRole: new Map(),
		toolCalls: 0,
		entries: entries.length,
		models: [],
	};
	const models = new Set<string>();
	for (const entry of entries) {
		if (!isKnownEntry(entry)) continue;
		if (entry.type === "model_change") {
			models.add(`${entry.provider}/${entry.modelId}`);
			continue;
		}
		if (entry.type !== "message") continue;
		const message = entry.message;
		totals.messagesByRole.set(message.role, (totals.messagesByRole.get(message.role) ?? 0) + 1);
		if (message.role !== "assistant") continue;
		models.add(`${message.provider}/${message.model}`);
		// Usage is read defensively: files written by other programs may lack parts of it.
		const usage: unknown = message.usage;
		if (isRecord(usage)) {
			totals.input += finiteOrZero(usage.input);
			totals.output += finiteOrZero(usage.output);
			totals.cacheRead += finiteOrZero(usage.cacheRead);
			totals.cacheWrite += finiteOrZero(usage.cacheWrite);
			if (isRecord(usage.cost)) totals.cost += finiteOrZero(usage.cost.total);
		}
		for (const block of message.content) if (block.type === "toolCall") totals.toolCalls++;
	}
	totals.models = [...models];
	return totals;
}
