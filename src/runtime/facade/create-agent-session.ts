import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { resolve } from "node:path";
import { RetryPolicy } from "../../agent/retry.js";
import type { AgentTool, StreamFunction } from "../../agent/types.js";
import { agentDir as defaultAgentDir, expandHome } from "../../llm/config-paths.js";
import { ModelRegistry } from "../../llm/model-registry.js";
import { streamModel } from "../../llm/registry.js";
import type { McpServerConfig } from "../../mcp/types.js";
import { type ApprovalMode, resolvePermissions } from "../../permissions/index.js";
import { loadContextFiles } from "../../resources/context-files.js";
import { loadResources } from "../../resources/load-resources.js";
import { SettingsStore } from "../../resources/settings.js";
import { skillsPromptSection } from "../../resources/skills.js";
import { buildSystemPrompt } from "../../resources/system-prompt.js";
import { effectiveSandboxSettings, Sandbox, type SandboxMode } from "../../sandbox/index.js";
import {
	continueRecentSession,
	createSession,
	inMemorySession,
	openSession,
	openSessionById,
	sessionDirFor,
} from "../../session/open.js";
import type { Session } from "../../session/session.js";
import { toolEnvironment } from "../../tools/environment.js";
import { type BuiltInToolOptions, createBuiltInTools } from "../../tools/index.js";
import type { ApprovalHandler } from "../approvals/tool-approvals.js";
import type { ExtensionSetup } from "../extensions/bridge.js";
import { AgentSession, type SessionFactory } from "./agent-session.js";

export interface CreateAgentSessionOptions {
	cwd?: string;
	/** Default: env ATOMIC_CODING_AGENT_DIR, else ~/.atomic/agent. */
	agentDir?: string;
	env?: NodeJS.ProcessEnv;
	/** `--model` pattern (`id`, `provider/id`, optional `:thinking`) and `--provider`. */
	model?: string;
	provider?: string;
	thinking?: string;
	/** A key for the selected provider, this process only. */
	apiKey?: string;
	/** In-memory session: never writes a file. */
	noSession?: boolean;
	sessionDir?: string;
	/** Open this session: a file path, or an id / id prefix in this project. */
	session?: string;
	/** Continue the most recent session of the cwd. */
	continueSession?: boolean;
	/** Display name set at startup. */
	name?: string;
	/** Built-in tools to enable (default all); an empty list disables tools. */
	tools?: string[];
	/** `--skill PATH` values. */
	skillPaths?: string[];
	/** False: no skill discovery (`--no-skills`). */
	skills?: boolean;
	/** False: no prompt template discovery (`--no-prompt-templates`). */
	promptTemplates?: boolean;
	/** True: no AGENTS.md / CLAUDE.md in the system prompt (`--no-context-files`). */
	noContextFiles?: boolean;
	/** Text appended to the system prompt. */
	appendSystemPrompt?: string;
	/** Extensions: explicit paths, discovery, and the mode's UI; absent: none are loaded. */
	extensions?: Omit<ExtensionSetup, "agentDir">;
	/** Replaces the provider stream (tests, custom transports). */
	streamFunction?: StreamFunction;
	/** Save model and thinking choices as the user's defaults (default true). */
	persistDefaults?: boolean;
	/** Quiet time after which a busy session sends a heartbeat (default: settings, else 5000 ms; 0: never). */
	heartbeatMs?: number;
	/** `--approval-mode`: over the user's settings; the project's settings may only make it stricter. */
	approvalMode?: ApprovalMode;
	/** `--sandbox`: over the user's settings; the project's settings may only make it stricter. */
	sandboxMode?: SandboxMode;
	/**
	 * Answers tool approval requests (mode `ask`). Absent: nobody answers, so calls that would ask
	 * are denied with "No client to approve".
	 */
	approve?: ApprovalHandler;
	/** Model fallback tiers (`--fallback-models`); default: settings.json `fallbackModels`. */
	fallbackModels?: string[];
	/** False: start no MCP server at all (`--no-mcp`). */
	mcp?: boolean;
	/** `--mcp-config` files (relative to cwd), read after the user's `<agentDir>/mcp.json`. */
	mcpConfigs?: string[];
	/** MCP servers passed in memory (trusted, source "acp"), started with the others. */
	mcpServers?: McpServerConfig[];
	/** Where the built-in tools read and write files and run commands (ACP: the editor); default the disk and a local shell. */
	toolBackends?: Pick<BuiltInToolOptions, "files" | "runShell">;
}

export interface CreatedAgentSession {
	session: AgentSession;
	/** Non-fatal problems for stderr (models.json, settings, unknown thinking level). */
	warnings: string[];
	/** settings.json `idlePreload`: whether a long-lived mode loads ahead what a first prompt needs. */
	idlePreload: boolean;
}

/**
 * Builds an AgentSession from options, settings.json and models.json. Throws on unusable options
 * and on a permissions block that cannot be read (running under an unknown policy is worse than
 * not running).
 */
export function createAgentSession(options: CreateAgentSessionOptions = {}): CreatedAgentSession {
	const env = options.env ?? process.env;
	const cwd = resolve(options.cwd ?? process.cwd());
	const agentDir = options.agentDir ?? defaultAgentDir(env);
	const registry = new ModelRegistry(agentDir, env);
	const settingsStore = new SettingsStore(agentDir, cwd);
	const settings = settingsStore.get();
	const warnings = [...registry.errors, ...registry.credentials.problems(), ...settingsStore.errors];
	const policy = resolvePermissions({ ...settingsStore.permissionLayers(), mode: options.approvalMode });
	const permissionErrors = [...settingsStore.permissionErrors, ...policy.errors];
	if (permissionErrors.length > 0) throw new Error(`Invalid permissions settings:\n${permissionErrors.join("\n")}`);
	warnings.push(...policy.warnings);

	const envSessionDir = env.ATOMIC_CODING_AGENT_SESSION_DIR?.trim();
	const configuredDir = options.sessionDir ?? (envSessionDir || undefined) ?? settings.sessionDir;
	const sessionDir = configuredDir ? resolve(cwd, expandHome(configuredDir)) : undefined;
	const location = { cwd, sessionDir, agentDir };
	const session = openInitialSession(options, location);

	const factory: SessionFactory = {
		create: ({ cwd: sessionCwd, parentSession }) =>
			options.noSession
				? inMemorySession({ cwd: sessionCwd, parentSession })
				: createSession({ ...location, cwd: sessionCwd, parentSession }),
		open: (path, openOptions = {}) => {
			const absolute = resolve(cwd, expandHome(path));
			if (openOptions.cwdOverride !== undefined)
				return openSession(absolute, { cwd: resolve(cwd, openOptions.cwdOverride) });
			return openSession(absolute, existsSync(absolute) ? {} : { cwd: openOptions.cwd ?? cwd });
		},
		directory: (sessionCwd) => (options.noSession ? undefined : sessionDirFor({ ...location, cwd: sessionCwd })),
	};

	const sandboxSettings = effectiveSandboxSettings({ ...settingsStore.sandboxLayers(), flagMode: options.sandboxMode });
	const sandbox = new Sandbox(sandboxSettings, { home: homedir(), agentDir }, env.PATH);
	warnings.push(...sandbox.startupProblems(session.cwd || cwd));
	const toolNames = options.tools;
	const shellEnv = toolEnvironment(
		process.env,
		registry.credentialVariables(),
		// A project's .atomic/settings.json cannot hand the user's keys to the commands it makes run.
		settingsStore.userSettings().shellEnv?.inheritCredentials,
	);
	const retry = settings.retry ?? {};
	const agentSession = new AgentSession({
		registry,
		settings: settingsStore,
		modelChoices: { model: options.model, provider: options.provider, thinking: options.thinking },
		session,
		sessionFactory: factory,
		tools: (toolCwd) =>
			createBuiltInTools(
				{ cwd: toolCwd, shellPath: settings.shellPath, env: shellEnv, sandbox, ...options.toolBackends },
				toolNames,
			),
		systemPrompt: (promptCwd, tools: AgentTool[], skills) =>
			buildSystemPrompt({
				cwd: promptCwd,
				tools,
				contextFiles: options.noContextFiles ? [] : loadContextFiles(agentDir, promptCwd),
				skillsSection: skillsPromptSection(skills),
				append: options.appendSystemPrompt,
			}),
		loadResources: (resourceCwd, extra) =>
			loadResources({
				agentDir,
				cwd: resourceCwd,
				skillPaths: [...(options.skillPaths ?? []), ...extra.skillPaths],
				templatePaths: extra.templatePaths,
				skills: options.skills ?? true,
				templates: options.promptTemplates ?? true,
			}),
		streamFunction: options.streamFunction ?? streamModel,
		retry: new RetryPolicy({
			enabled: retry.enabled ?? true,
			maxRetries: retry.maxRetries ?? 3,
			baseDelayMs: retry.baseDelayMs ?? 2000,
		}),
		steeringMode: settings.steeringMode,
		followUpMode: settings.followUpMode,
		autoCompaction: settings.autoCompaction ?? settings.compaction?.enabled ?? true,
		shellPath: settings.shellPath,
		shellEnv,
		thinkingBudgets: settings.thinkingBudgets,
		streamIdleTimeoutMs: settings.streamIdleTimeoutMs,
		persistDefaults: options.persistDefaults ?? true,
		extensions: options.extensions ? { ...options.extensions, agentDir } : undefined,
		heartbeatMs: options.heartbeatMs ?? settings.heartbeatMs,
		permissions: policy.permissions,
		approve: options.approve,
		fallbackModels: options.fallbackModels ?? settings.fallbackModels,
		mcp: {
			enabled: options.mcp !== false,
			agentDir,
			cwd: session.cwd || cwd,
			configFiles: options.mcpConfigs ?? [],
			servers: options.mcpServers,
		},
		env,
		sandbox,
	});
	warnings.push(...agentSession.modelWarnings);
	const selected = agentSession.model;
	if (options.apiKey && selected) registry.credentials.setRuntimeKey(selected.provider, options.apiKey);
	if (options.name !== undefined) agentSession.setSessionName(options.name);
	return { session: agentSession, warnings, idlePreload: settings.idlePreload ?? true };
}

function openInitialSession(
	options: CreateAgentSessionOptions,
	location: { cwd: string; sessionDir?: string; agentDir: string },
): Session {
	if (options.noSession) return inMemorySession({ cwd: location.cwd });
	if (options.session) {
		const target = options.session;
		const isPath = target.includes("/") || target.includes("\\") || target.endsWith(".jsonl");
		return isPath ? openSession(resolve(location.cwd, expandHome(target))) : openSessionById(target, location);
	}
	if (options.continueSession) return continueRecentSession(location);
	return createSession(location);
}
