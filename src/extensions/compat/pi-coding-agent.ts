// What `@earendil-works/pi-coding-agent` and `@mariozechner/pi-coding-agent` resolve to inside an
// extension: the extension API's types and the helpers pi exports for extensions, as Atomic
// implements them. Anything else pi exports (its SDK, session manager class, TUI editors) is a
// stand-in that names itself when used. (`atomic-agent` resolves to Atomic's own package entry.)
import { agentDir } from "../../llm/config-paths.js";
import type { StandIn } from "./unavailable.js";

export type { AgentMessage, CustomMessage } from "../../agent/messages.js";
export { convertToLlm } from "../../agent/messages.js";
export type { AgentToolResult, ToolUpdateCallback as AgentToolUpdateCallback } from "../../agent/types.js";
export type { SourceInfo } from "../../resources/source-info.js";
export { withFileMutationQueue } from "../../tools/file-mutation-queue.js";
export {
	DEFAULT_MAX_BYTES,
	DEFAULT_MAX_LINES,
	formatSize,
	type TruncationResult,
	truncateHead,
	truncateLine,
	truncateTail,
} from "../../tools/truncate.js";
export {
	defineTool,
	isBashToolResult,
	isEditToolResult,
	isFindToolResult,
	isGrepToolResult,
	isLsToolResult,
	isReadToolResult,
	isToolCallEventType,
	isWriteToolResult,
} from "../define-tool.js";
export type * from "../events.js";
export type * from "../host.js";
export type * from "../types.js";
export type * from "../ui-types.js";
export * from "./built-in-tools.js";
export {
	getEditorTheme,
	getMarkdownTheme,
	getSelectListTheme,
	getSettingsListTheme,
	keyHint,
	keyText,
	rawKeyHint,
	Theme,
} from "./plain-theme.js";
export { DynamicBorder } from "./tui-components.js";

declare const __ATOMIC_VERSION__: string | undefined;

/** Atomic's version (pi extensions read it as pi's). */
export const VERSION = typeof __ATOMIC_VERSION__ === "string" ? __ATOMIC_VERSION__ : "0.0.0-dev";

/** The project config directory name: `.atomic` (pi's is `.pi`). */
export const CONFIG_DIR_NAME = ".atomic";

/** The agent directory: `ATOMIC_CODING_AGENT_DIR`, else `~/.atomic/agent`. */
export function getAgentDir(): string {
	return agentDir(process.env);
}

// pi's SDK and terminal classes, declared for extensions' types only: at run time each is a
// stand-in (see unavailable.ts) that names itself when used.
export declare const SessionManager: StandIn;
export declare const SettingsManager: StandIn;
export declare const CustomEditor: StandIn;
export declare const BorderedLoader: StandIn;
export declare const ModelRuntime: StandIn;
export declare const DefaultResourceLoader: StandIn;
export declare const createAgentSession: StandIn;
