import { messageText } from "../../agent/messages.js";
import {
	buildBranchSummaryRequest,
	DEFAULT_BRANCH_SUMMARY_RESERVE,
	entriesLeaving,
	readBranchSummary,
} from "../../compaction/branch-summary.js";
import type { Model, ThinkingLevel } from "../../llm/types.js";
import { entryMessage } from "../../session/context.js";
import type { Session } from "../../session/session.js";
import type { AbortTree } from "../runs/abort-tree.js";
import { SideRequestCancelled, type SideRequestHost, sideRequest } from "../runs/side-request.js";

export const NAVIGATE_WHILE_STREAMING = "Wait for the current response to finish before navigating the session tree.";

export interface NavigateOptions {
	/** Summarise the branch being left into a branch_summary entry (a model request). */
	summarize?: boolean;
	/** Extra instructions for the summary. */
	customInstructions?: string;
	/** A label for the entry navigated to (or for the summary entry). */
	label?: string;
}

export interface NavigateResult {
	cancelled: boolean;
	/** The text of a user message navigated to, for a client to put back in its editor. */
	editorText?: string;
}

export interface TreeNavigationHost extends SideRequestHost {
	current: { readonly session: Session };
	models: { readonly model: Model | undefined; readonly thinkingLevel: ThinkingLevel };
	tree: AbortTree;
	runs: { readonly isStreaming: boolean };
	/** Rebuilt from the session's new active branch. */
	conversation: { rebuild(): void };
}

/**
 * Moves the active leaf to another entry of the session tree (navigate_tree). Navigating to a
 * user message (or a custom message) lands on its parent and hands its text back, so the client
 * can edit and resend it. With `summarize`, the branch being left is summarised by the model first.
 */
export class TreeNavigation {
	constructor(private readonly host: TreeNavigationHost) {}

	async navigate(targetId: string, options: NavigateOptions = {}): Promise<NavigateResult> {
		const { host } = this;
		if (host.runs.isStreaming) throw new Error(NAVIGATE_WHILE_STREAMING);
		const session = host.current.session;
		const target = session.getEntry(targetId);
		if (!target) throw new Error(`Entry ${targetId} not found`);
		const message = entryMessage(target);
		const returnsText = message?.role === "user" || message?.role === "custom";
		const newLeaf = returnsText ? target.parentId : target.id;
		const editorText = returnsText && message ? messageText(message) : undefined;
		const result: NavigateResult = editorText === undefined ? { cancelled: false } : { cancelled: false, editorText };
		if (newLeaf === session.leafId && !options.summarize) {
			if (options.label) session.setLabel(target.id, options.label);
			return result;
		}

		const leaving = entriesLeaving(session.getBranch(), newLeaf === null ? [] : session.getBranch(newLeaf));
		if (options.summarize && leaving.some((entry) => entryMessage(entry) !== undefined)) {
			const summary = await this.summarize(leaving, options.customInstructions);
			if (!summary) return { cancelled: true };
			const entry = session.branchWithSummary(newLeaf, summary.summary, { details: summary.files });
			if (options.label) session.setLabel(entry.id, options.label);
		} else {
			if (newLeaf === null) session.resetLeaf();
			else session.branch(newLeaf);
			if (options.label) session.setLabel(target.id, options.label);
		}
		host.conversation.rebuild();
		return result;
	}

	private async summarize(
		entries: ReturnType<typeof entriesLeaving>,
		customInstructions: string | undefined,
	): Promise<ReturnType<typeof readBranchSummary> | undefined> {
		const model = this.host.models.model;
		if (!model) throw new Error("No model available for summarization");
		const budget = Math.max(2000, model.contextWindow - DEFAULT_BRANCH_SUMMARY_RESERVE);
		const request = buildBranchSummaryRequest(entries, budget, customInstructions);
		// The session's abort reaches the summary request and its retry delays.
		const operation = this.host.tree.start();
		try {
			const reply = await sideRequest(this.host, model, request, operation.signal, { source: "branchSummary" });
			if (reply.stopReason === "aborted" || operation.signal.aborted) return undefined;
			if (reply.stopReason === "error") throw new Error(`Branch summary failed: ${reply.errorMessage ?? "error"}`);
			return readBranchSummary(reply, request.files);
		} catch (error) {
			if (error instanceof SideRequestCancelled) return undefined;
			throw error;
		} finally {
			operation.finish();
		}
	}
}
