// What `@earendil-works/pi-agent-core` (and `@mariozechner/pi-agent-core`) resolve to inside an
// extension: the agent's message and tool types. Extensions import them as types (erased); the
// runtime exports (pi's Agent class, its loop) are stand-ins that name themselves when used.
import type { StandIn } from "./unavailable.js";

export type { AgentMessage } from "../../agent/messages.js";
export type {
	AgentEvent,
	AgentTool,
	AgentToolResult,
	ToolExecutionMode,
	ToolUpdateCallback as AgentToolUpdateCallback,
} from "../../agent/types.js";
export type { ThinkingLevel } from "../../llm/types.js";

export declare const Agent: StandIn;
export declare const agentLoop: StandIn;
