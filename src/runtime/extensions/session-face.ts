import type { AgentMessage } from "../../agent/messages.js";
import type { CompactionParameterInput, CompactionResult } from "../../compaction/index.js";
import type { CustomMessageInput, SendMessageOptions, SendUserMessageOptions } from "../../extensions/index.js";
import type { ImageContent, Model, TextContent, ThinkingLevel } from "../../llm/types.js";
import type { Session } from "../../session/session.js";
import type { SessionStats } from "../current/stats.js";
import type { NavigateOptions, NavigateResult } from "../current/tree-navigation.js";
import type { AgentSessionListener } from "../facade/events.js";
import type { ExtensionBridge } from "./bridge.js";

/**
 * What extensions reach of a session when they call back: part of AgentSession's public API,
 * named here so that the parts the session is composed of need not know the session itself.
 * AgentSession is one.
 */
export interface SessionFace {
	readonly cwd: string;
	readonly model: Model | undefined;
	readonly thinkingLevel: ThinkingLevel;
	readonly isStreaming: boolean;
	readonly session: Session;
	readonly messages: AgentMessage[];
	readonly agent: { readonly queuedCount: number };
	readonly extensions: ExtensionBridge;
	subscribe(listener: AgentSessionListener): () => void;
	sendCustomMessage(message: CustomMessageInput, options?: SendMessageOptions): Promise<void>;
	sendUserMessage(content: string | (TextContent | ImageContent)[], options?: SendUserMessageOptions): Promise<void>;
	availableModels(): Model[];
	setModel(provider: string, modelId: string): Model;
	setThinkingLevel(level: ThinkingLevel): ThinkingLevel;
	abort(): Promise<void>;
	getSessionStats(): SessionStats;
	setSessionName(name: string): void;
	setLabel(entryId: string, label?: string): void;
	compact(options?: CompactionParameterInput): Promise<CompactionResult>;
	newSession(options?: { parentSession?: string }): Promise<{ cancelled: boolean }>;
	switchSession(path: string): Promise<{ cancelled: boolean }>;
	fork(entryId: string): Promise<{ text: string; cancelled: boolean }>;
	clone(): Promise<{ cancelled: boolean }>;
	navigateTree(targetId: string, options?: NavigateOptions): Promise<NavigateResult>;
}
