// What each command's response carries in `data` (see ../handlers.ts). Only types.
import type { AgentMessage } from "../../agent/messages.js";
import type { CompactionResult } from "../../compaction/result.js";
import type { AuthStatus } from "../../llm/credentials.js";
import type { Model, ThinkingLevel } from "../../llm/types.js";
import type { McpServerInfo } from "../../mcp/types.js";
import type { CommandInfo } from "../../resources/commands.js";
import type { SessionStats } from "../../runtime/current/stats.js";
import type { NavigateResult } from "../../runtime/current/tree-navigation.js";
import type { PromptDisposition, SessionState, SessionSummary } from "../../runtime/facade/api-types.js";
import type { BashResult } from "../../runtime/runs/bash-requests.js";
import type { SessionEntry, TreeNode } from "../../session/types.js";
import type { CommandOf, CommandType } from "../protocol/commands.js";
import type { RpcEvent } from "./types.js";

/** A Model as responses carry it: never with `headers` (they may hold credentials). */
export type RpcModel = Omit<Model, "headers">;

/** Fails to compile when a command of commands.ts has no result type here. */
type EveryCommand<T extends Record<CommandType, unknown>> = T;

/** The `data` of each command's success response (`undefined`: the response has no data). */
export type CommandResults = EveryCommand<{
	prompt: { disposition: PromptDisposition };
	steer: { disposition: "queued" };
	follow_up: { disposition: "queued" };
	abort: undefined;
	new_session: { cancelled: boolean };
	get_state: SessionState;
	get_messages: { messages: AgentMessage[] };
	set_model: RpcModel;
	cycle_model: { model: RpcModel; thinkingLevel: ThinkingLevel; isScoped: boolean } | null;
	get_available_models: { models: RpcModel[] };
	logout_provider: { provider: string; authStatus: AuthStatus; models: RpcModel[]; scopedModels?: RpcModel[] };
	set_thinking_level: undefined;
	cycle_thinking_level: { level: ThinkingLevel } | null;
	get_available_thinking_levels: { levels: ThinkingLevel[] };
	set_steering_mode: undefined;
	set_follow_up_mode: undefined;
	/** `summary` is `compactedText` again, under the name pi's clients read. */
	compact: CompactionResult & { summary: string };
	abort_compaction: undefined;
	set_auto_compaction: undefined;
	set_auto_retry: undefined;
	abort_retry: undefined;
	bash: BashResult;
	abort_bash: undefined;
	get_session_stats: SessionStats;
	export_html: { path: string };
	switch_session: { cancelled: boolean };
	fork: { text: string; cancelled: boolean };
	clone: { cancelled: boolean };
	get_fork_messages: { messages: { entryId: string; text: string }[] };
	get_entries: { entries: SessionEntry[]; leafId: string | null };
	get_tree: { tree: TreeNode[]; leafId: string | null };
	get_last_assistant_text: { text: string | null };
	set_session_name: undefined;
	get_commands: { commands: CommandInfo[] };
	clear_queue: { steering: string[]; followUp: string[] };
	import_session: { cancelled: boolean };
	user_bash: BashResult;
	set_label: undefined;
	navigate_tree: NavigateResult;
	pause_queued_messages: undefined;
	resume_queued_messages: { released: boolean };
	tool_approval_response: undefined;
	set_approval_mode: undefined;
	set_sandbox_mode: undefined;
	get_mcp_servers: { servers: McpServerInfo[] };
	list_sessions: { sessions: SessionSummary[] };
	attach: { sessionId: string; seq: number; state: SessionState };
	detach: undefined;
}>;

/** A command as the client sends it: the id is the client's to assign. */
export type CommandInput<K extends CommandType> = { type: K } & Omit<CommandOf<K>, "id" | "type">;

/** The constrained-sampling claims of a model's configuration; an absent field means unknown. */
export interface ModelCapabilityClaims {
	/** Anthropic/Bedrock strict tool schemas. */
	supportsStrictTools?: boolean;
	supportsStrictMode?: boolean;
	/** OpenAI grammar-constrained tools (canonical name). */
	supportsOpenAIGrammarTools?: boolean;
	/** Alias of supportsOpenAIGrammarTools, always equal to it. */
	supportsGrammarTools?: boolean;
}

/** The small model shape of `getAvailableModels()`. */
export interface ModelInfo {
	provider: string;
	id: string;
	contextWindow: number;
	reasoning: boolean;
	/** Present only when the configuration makes at least one claim. */
	compat?: ModelCapabilityClaims;
}

/** What `promptAndWait` collects between the prompt's acceptance and `agent_settled`. */
export interface PromptOutcome {
	/** The `messages` of every `agent_end` of the lifecycle (the prompt's run, then queued follow-ups). */
	messages: AgentMessage[];
	/** Every event after acceptance, `agent_settled` included. */
	events: RpcEvent[];
}
