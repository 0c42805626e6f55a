import type { AgentMessage } from "../../agent/messages.js";
import type {
	ObservedEvent,
	SessionBeforeTreeEvent,
	SessionCompactFailedEvent,
	SessionTreeEvent,
} from "../../extensions/index.js";
import type { Model, ThinkingLevel } from "../../llm/types.js";
import type { Session } from "../../session/session.js";
import { isKnownEntry } from "../../session/types.js";
import type { NavigateOptions, NavigateResult, TreeNavigation } from "../current/tree-navigation.js";
import type { AgentSessionEvent } from "../facade/events.js";
import type { ExtensionBridge } from "./bridge.js";

/** The session events extensions hear, in pi's shapes (agent_settled, session_compact[_failed]). */
export function extensionNotice(
	event: AgentSessionEvent,
	session: Session,
	messages: readonly AgentMessage[],
): ObservedEvent | undefined {
	if (event.type === "agent_settled") {
		const last = messages.at(-1);
		return { type: "agent_settled", aborted: last?.role === "assistant" && last.stopReason === "aborted" };
	}
	if (event.type !== "compaction_end") return undefined;
	const { reason, willRetry } = event;
	if (event.result) {
		const entries = session.entries();
		const entry = [...entries]
			.reverse()
			.find((candidate) => isKnownEntry(candidate) && candidate.type === "compaction");
		return { type: "session_compact", compactionEntry: entry, fromExtension: false, reason, willRetry };
	}
	const failed: SessionCompactFailedEvent = {
		type: "session_compact_failed",
		reason,
		aborted: event.aborted,
		willRetry,
		fromExtension: false,
	};
	if (event.errorMessage !== undefined) failed.errorMessage = event.errorMessage;
	return failed;
}

/** `session_tree` after a navigation: where the leaf went, and the summary written on the way. */
function treeNotice(session: Session, oldLeafId: string | null, summarized: boolean): ObservedEvent {
	const leaf = session.getLeafEntry();
	const notice: SessionTreeEvent = { type: "session_tree", newLeafId: session.leafId, oldLeafId, fromExtension: false };
	if (summarized && leaf && isKnownEntry(leaf) && leaf.type === "branch_summary") notice.summaryEntry = leaf;
	return notice;
}

/**
 * A tree navigation with extensions asked first (`session_before_tree`, which may cancel) and told
 * after (`session_tree`). Refusals (busy, unknown entry) come from `navigate` itself, unasked.
 */
export async function navigateAnnounced(
	extensions: ExtensionBridge,
	session: Session,
	isStreaming: boolean,
	navigation: Pick<TreeNavigation, "navigate">,
	targetId: string,
	options: NavigateOptions,
): Promise<NavigateResult> {
	const oldLeafId = session.leafId;
	if (!isStreaming && session.getEntry(targetId)) {
		const preparation: SessionBeforeTreeEvent["preparation"] = {
			targetId,
			oldLeafId,
			userWantsSummary: options.summarize === true,
		};
		if (options.customInstructions !== undefined) preparation.customInstructions = options.customInstructions;
		if (options.label !== undefined) preparation.label = options.label;
		if (!(await extensions.allowTree(preparation))) return { cancelled: true };
	}
	const result = await navigation.navigate(targetId, options);
	if (!result.cancelled) extensions.notify(treeNotice(session, oldLeafId, options.summarize === true));
	return result;
}

type Selection = { model: Model | undefined; level: ThinkingLevel };

/**
 * Runs a model or thinking-level change of `subject`, then tells extensions what changed:
 * thinking_level_select, then model_select (pi's order).
 */
export function announced<T>(
	extensions: ExtensionBridge,
	subject: { readonly model: Model | undefined; readonly thinkingLevel: ThinkingLevel },
	source: "set" | "cycle",
	change: () => T,
): T {
	const before: Selection = { model: subject.model, level: subject.thinkingLevel };
	const result = change();
	const { model, thinkingLevel } = subject;
	if (thinkingLevel !== before.level)
		extensions.notify({ type: "thinking_level_select", level: thinkingLevel, previousLevel: before.level });
	if (model && model !== before.model)
		extensions.notify({ type: "model_select", model, previousModel: before.model, source });
	return result;
}
