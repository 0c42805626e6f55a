export { denialNotice, describeNetwork, findDenials } from "./denials.js";
export { SandboxRefusal } from "./file-policy.js";
export { DEFAULT_DENY_READ, type SandboxPolicy } from "./policy.js";
export { Sandbox, type SandboxLaunch, SandboxUnavailableError } from "./sandbox.js";
export {
	type EffectiveSandboxSettings,
	effectiveSandboxSettings,
	isLooserMode,
	type SandboxLayers,
	stricterNetwork,
} from "./settings.js";
export * from "./types.js";
