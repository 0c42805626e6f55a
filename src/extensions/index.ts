// The extension layer: loading, the API extensions receive, hook dispatch and the ctx.ui contract.
// Importing it does not load jiti; loadExtensions imports it only when there is a file to load.
export type * from "./events.js";
export { execCommand } from "./exec.js";
export type {
	ContextUsage,
	CustomMessageInput,
	ExtensionError,
	ExtensionErrorListener,
	ExtensionHost,
	ExtensionMode,
	SendMessageOptions,
	SendUserMessageOptions,
} from "./host.js";
export { type LoadExtensionsOptions, loadExtensions } from "./load.js";
export { ExtensionRunner, type ExtensionRunnerOptions, type InputOutcome, type InputRequest } from "./runner.js";
export type * from "./types.js";
export { createUiContext, headlessUiBackend, THEME_SWITCH_ERROR } from "./ui-context.js";
export type * from "./ui-types.js";
