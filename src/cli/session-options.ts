import type { ExtensionSetup } from "../runtime/extensions/bridge.js";
import type { CreateAgentSessionOptions } from "../runtime/facade/create-agent-session.js";
import type { CliArgs } from "./args.js";

/** The mode-dependent part of the extension setup. */
export type ExtensionOptions = Omit<ExtensionSetup, "paths" | "discover" | "agentDir">;

/** What the agent options of the command line make of a session (every mode, and `atomic serve`). */
export function sessionOptions(args: CliArgs, extensions: ExtensionOptions): CreateAgentSessionOptions {
	return {
		extensions: { paths: args.extensions, discover: !args.noExtensions, ...extensions },
		skillPaths: args.skills,
		skills: !args.noSkills,
		promptTemplates: !args.noPromptTemplates,
		noContextFiles: args.noContextFiles,
		tools: args.tools,
		appendSystemPrompt: args.appendSystemPrompt,
		model: args.model,
		provider: args.provider,
		thinking: args.thinking,
		apiKey: args.apiKey,
		noSession: args.noSession,
		sessionDir: args.sessionDir,
		session: args.session,
		continueSession: args.continueSession,
		name: args.name,
		approvalMode: args.approvalMode,
		sandboxMode: args.sandboxMode,
		mcp: !args.noMcp,
		mcpConfigs: args.mcpConfigs,
		fallbackModels: args.fallbackModels,
	};
}
