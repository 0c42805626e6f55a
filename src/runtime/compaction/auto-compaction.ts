import type { AgentMessage } from "../../agent/messages.js";
import {
	calculateContextTokens,
	contextOverflowOf,
	DEFAULT_RESERVE_TOKENS,
	shouldCompact,
} from "../../compaction/index.js";
import type { AssistantMessage, Model } from "../../llm/types.js";
import type { AgentSessionEvent } from "../facade/events.js";
import type { CompactionControl, CompactionFlags } from "./compaction-control.js";

export interface AutoCompactionHost {
	conversation: { readonly messages: readonly AgentMessage[] };
	compaction: CompactionControl;
	models: { readonly model: Model | undefined };
	enabled(): boolean;
	reserveTokens(): number | undefined;
	/** The context size estimate; null between a compaction and the next reply. */
	contextTokens(): number | null;
	events: { emit(event: AgentSessionEvent): unknown };
}

/**
 * What follows a finished run: nothing, another run that carries on (after an overflow was
 * compacted), another run only if messages are queued (after a threshold compaction), or
 * nothing because the context overflows and compaction could not make it fit.
 */
export type AfterRun = "done" | "continue" | "deliverQueued" | "unresolvedOverflow";

function lastReply(messages: readonly AgentMessage[]): AssistantMessage | undefined {
	for (let index = messages.length - 1; index >= 0; index--) {
		const message = messages[index] as AgentMessage;
		if (message.role === "assistant") return message;
		if (message.role === "user") return undefined;
	}
	return undefined;
}

/**
 * Automatic compaction after a run: when the provider reported a context overflow, compact and
 * continue the prompt (once per prompt; a second overflow is reported as unresolved); when the
 * last reply's context is above the window minus the reserve, compact without continuing, then
 * deliver queued messages. It decides; the prompt's lifecycle runs what it decided.
 */
export class AutoCompaction {
	private overflowRetried = false;

	constructor(private readonly host: AutoCompactionHost) {}

	/** A prompt's lifecycle starts: its one overflow recovery is still available. */
	startPrompt(): void {
		this.overflowRetried = false;
	}

	/**
	 * Before a new prompt goes out: when the last reply's context is already above the threshold
	 * (automatic compaction was off, or failed, after it, or the model changed to a smaller window),
	 * compacts first so that the prompt is sent with room. `contextKnown` is false between a
	 * compaction and the next reply, whose usage would describe the context before it.
	 */
	async beforePrompt(signal: AbortSignal): Promise<void> {
		const model = this.host.models.model;
		const reply = lastReply(this.host.conversation.messages);
		if (this.host.contextTokens() === null || !model || !reply || !this.host.enabled()) return;
		if (reply.stopReason === "aborted" || reply.stopReason === "error") return;
		const tokens = calculateContextTokens(reply.usage, reply.api);
		const reserve = this.host.reserveTokens() ?? DEFAULT_RESERVE_TOKENS;
		if (shouldCompact(tokens, model.contextWindow, reserve)) await this.tryCompact("threshold", signal);
	}

	/**
	 * Between a run's tool calls and its next model call: when the context the next request would
	 * carry (the last reply's usage plus estimates of the tool results since) is above the
	 * threshold, compacts now rather than sending a request that may overflow. The compaction
	 * rebuilds `agent.messages` in place, the array the running loop works on.
	 */
	async afterToolBatch(signal: AbortSignal): Promise<void> {
		const model = this.host.models.model;
		const tokens = this.host.contextTokens();
		if (!model || tokens === null || !this.host.enabled()) return;
		const reserve = this.host.reserveTokens() ?? DEFAULT_RESERVE_TOKENS;
		if (!shouldCompact(tokens, model.contextWindow, reserve)) return;
		await this.tryCompact("threshold", signal, { midTurn: true });
	}

	/** After a run of the prompt whose signal is `signal`: compacts when due and says what follows. */
	async afterRun(signal: AbortSignal): Promise<AfterRun> {
		const model = this.host.models.model;
		const reply = lastReply(this.host.conversation.messages);
		if (signal.aborted || !model || !reply || !this.host.enabled() || reply.stopReason === "aborted") return "done";
		if (reply.provider !== model.provider || reply.model !== model.id) return "done";
		const overflow = contextOverflowOf(reply, model.contextWindow);
		if (overflow === "reported") {
			if (this.overflowRetried) {
				this.host.events.emit({
					type: "compaction_end",
					reason: "overflow",
					result: null,
					aborted: false,
					willRetry: false,
					unresolvedOverflow: true,
					errorMessage: `The context still exceeds the model's window after compaction: ${reply.errorMessage ?? "overflow"}`,
				});
				return "unresolvedOverflow";
			}
			this.overflowRetried = true;
			return (await this.tryCompact("overflow", signal, { willRetry: true })) ? "continue" : "unresolvedOverflow";
		}
		if (reply.stopReason === "error") return "done";
		const tokens = calculateContextTokens(reply.usage, model.api);
		const reserve = this.host.reserveTokens() ?? DEFAULT_RESERVE_TOKENS;
		if (overflow === "silent_stop" || shouldCompact(tokens, model.contextWindow, reserve)) {
			await this.tryCompact("threshold", signal);
			return "deliverQueued";
		}
		return "done";
	}

	/** Compacts; failures were already reported through compaction_end. */
	private async tryCompact(
		reason: "threshold" | "overflow",
		signal: AbortSignal,
		flags: CompactionFlags = {},
	): Promise<boolean> {
		try {
			await this.host.compaction.compact(reason, {}, flags, signal);
			return true;
		} catch (error) {
			if (error instanceof Error && error.message.startsWith("Nothing to compact") && reason === "overflow") {
				this.host.events.emit({
					type: "compaction_end",
					reason,
					result: null,
					aborted: false,
					willRetry: false,
					unresolvedOverflow: true,
					errorMessage: "The context overflowed and there is nothing left to compact",
				});
			}
			return false;
		}
	}
}
