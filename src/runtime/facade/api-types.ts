import type { QueueMode } from "../../agent/message-queue.js";
import type { RetryPolicy } from "../../agent/retry.js";
import type { AgentTool, StreamFunction } from "../../agent/types.js";
import type { ModelRegistry } from "../../llm/model-registry.js";
import type { ImageContent, Model, ThinkingLevel } from "../../llm/types.js";
import type { McpSetup } from "../../mcp/setup.js";
import type { ApprovalMode, ResolvedPermissions } from "../../permissions/index.js";
import type { LoadedResources } from "../../resources/load-resources.js";
import type { SettingsStore } from "../../resources/settings.js";
import type { Skill } from "../../resources/skills.js";
import type { Sandbox, SandboxState } from "../../sandbox/index.js";
import type { Session } from "../../session/session.js";
import type { ApprovalHandler } from "../approvals/tool-approvals.js";
import type { ExtensionSetup } from "../extensions/bridge.js";
import type { ModelChoices } from "../models/model-selection.js";

export type StreamingBehavior = "steer" | "followUp";

/** What became of an accepted prompt: a run started, it was queued, or a command or hook handled it. */
export type PromptDisposition = "started" | "queued" | "handled";

export interface PromptOptions {
	images?: ImageContent[];
	/** Required while the agent is streaming: queue as steering or as a follow-up. */
	streamingBehavior?: StreamingBehavior;
	/**
	 * Called once, synchronously, when the prompt is accepted (queued, or about to run) and before
	 * any event of its run, with what became of it ("handled": an extension command or the `input`
	 * hook took it, no run starts). A prompt that is rejected throws instead and never calls it.
	 */
	onAccepted?(disposition: PromptDisposition): void;
	/**
	 * Called when the prompt turned out to be an extension command, just before it runs (its
	 * `onAccepted` follows once it is done). The RPC server lets later commands run meanwhile,
	 * so a command waiting on a dialog never holds up the others.
	 */
	onCommandStart?(): void;
}

/** Creates and opens sessions for replacements (new, switch, fork, clone). */
export interface SessionFactory {
	create(options: { cwd: string; parentSession?: string }): Session;
	/**
	 * Opens a session file. `cwdOverride` replaces the working directory the file's header names;
	 * a path that does not exist yet starts a new session there, for `cwd`.
	 */
	open(path: string, options?: { cwdOverride?: string; cwd?: string }): Session;
	/** Where sessions of `cwd` are stored (`--session-dir` or the default); undefined in memory. */
	directory(cwd: string): string | undefined;
}

export interface AgentSessionOptions {
	registry: ModelRegistry;
	settings: SettingsStore;
	/** --model, --provider, --thinking: applied at start and again whenever the session is replaced. */
	modelChoices?: ModelChoices;
	/** The session to start with; its working directory is the agent's. */
	session: Session;
	sessionFactory: SessionFactory;
	tools: (cwd: string) => AgentTool[];
	systemPrompt: (cwd: string, tools: AgentTool[], skills: Skill[]) => string;
	/** Skills and prompt templates of a working directory (loaded in the background), plus extensions' paths. */
	loadResources: (cwd: string, extra: { skillPaths: string[]; templatePaths: string[] }) => Promise<LoadedResources>;
	streamFunction: StreamFunction;
	retry: RetryPolicy;
	steeringMode?: QueueMode;
	followUpMode?: QueueMode;
	autoCompaction?: boolean;
	shellPath?: string;
	/** The environment of commands run for the client and by extensions (default: this process's). */
	shellEnv?: NodeJS.ProcessEnv;
	/** Where truncated bash outputs are written in full. */
	spillDir?: string;
	thinkingBudgets?: Partial<Record<ThinkingLevel, number>>;
	streamIdleTimeoutMs?: number;
	/** Whether model and thinking choices are saved as the user's defaults. */
	persistDefaults?: boolean;
	/** Extensions to load; absent: none. */
	extensions?: ExtensionSetup;
	/** Quiet time after which a busy session sends a heartbeat (default 5000 ms; 0: never). */
	heartbeatMs?: number;
	/** The tool approval policy (mode, rules, timeout). */
	permissions: ResolvedPermissions;
	/** Who answers approval requests; absent: nobody, so calls that would ask are denied. */
	approve?: ApprovalHandler;
	/** Model fallback tiers: `provider/id` patterns tried in order when the model in use fails for good. */
	fallbackModels?: readonly string[];
	/** Where MCP servers are configured; absent: none (servers can still be added through `mcp.add`). */
	mcp?: McpSetup;
	/** The environment `$VAR` in MCP configuration reads (default: process.env). */
	env?: NodeJS.ProcessEnv;
	/** Where the model's commands run; default: a sandbox that is off until a mode is set. */
	sandbox?: Sandbox;
}

/** One session as `list_sessions` reports it. */
export interface SessionSummary {
	id: string;
	name: string | null;
	cwd: string;
	/** null: not stored (--no-session). */
	file: string | null;
	/** Held by the process now. */
	live: boolean;
	streaming: boolean;
	/** How many clients follow it (atomic serve; over stdio the one client of a live session). */
	attached: number;
	/** Stored sessions: the last message's time (ISO-8601), how many messages, and the first one's text. */
	modified?: string;
	messageCount?: number;
	firstMessage?: string;
}

export interface SessionState {
	model: Omit<Model, "headers"> | null;
	thinkingLevel: ThinkingLevel;
	isStreaming: boolean;
	isCompacting: boolean;
	steeringMode: QueueMode;
	followUpMode: QueueMode;
	sessionFile?: string;
	sessionId: string;
	sessionName?: string;
	autoCompactionEnabled: boolean;
	messageCount: number;
	pendingMessageCount: number;
	/** pause_queued_messages is in effect. */
	queuedMessagesPaused: boolean;
	/** How tool calls are approved. */
	approvalMode: ApprovalMode;
	/** The names of the tools the model is offered (built-in, extension and connected MCP tools). */
	tools: string[];
	/** The sandbox of the model's commands: mode, network, and whether it can be made here. */
	sandbox: SandboxState;
}
