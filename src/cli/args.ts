import { type ApprovalMode, isApprovalMode } from "../permissions/modes.js";
import { isSandboxMode, type SandboxMode } from "../sandbox/types.js";

export type Mode = "text" | "json" | "rpc" | "acp";

export interface CliArgs {
	mode: Mode;
	print: boolean;
	messages: string[];
	provider?: string;
	model?: string;
	thinking?: string;
	apiKey?: string;
	version: boolean;
	help: boolean;
	listModels: boolean;
	listModelsSearch?: string;
	/** Print the JSON Schema of the RPC protocol and exit (set only when given). */
	rpcSchema?: boolean;
	/** `--sandbox`: where the model's bash commands run. */
	sandboxMode?: SandboxMode;
	/** `--sandbox-check`: print what the sandbox can do on this machine and exit. */
	sandboxCheck?: boolean;
	noSession: boolean;
	sessionDir?: string;
	session?: string;
	continueSession: boolean;
	name?: string;
	extensions: string[];
	noExtensions: boolean;
	skills: string[];
	noSkills: boolean;
	noPromptTemplates: boolean;
	noContextFiles: boolean;
	/** Built-in tools to enable; undefined: all. */
	tools?: string[];
	appendSystemPrompt?: string;
	/** `--approval-mode`: how tool calls are approved. */
	approvalMode?: ApprovalMode;
	/** `--mcp-config` files, in order. */
	mcpConfigs: string[];
	noMcp: boolean;
	/** `--offline`: nothing goes over the network before a prompt asks for it (ATOMIC_OFFLINE=1). */
	offline: boolean;
	/** `--fallback-models`: provider/id patterns, in order; undefined: settings.json's. */
	fallbackModels?: string[];
}

interface FlagSpec {
	names: string[];
	value?: string;
	help: string;
	apply(args: CliArgs, value: string | undefined): void;
}

/** Every flag Atomic accepts. `--help` prints this table, so it is complete by construction. */
export const FLAGS: FlagSpec[] = [
	{
		names: ["--mode"],
		value: "MODE",
		help: "text (default), json (every event as a JSON line), rpc (JSON-lines protocol on stdin/stdout) or acp (Agent Client Protocol for editors)",
		apply(args, value) {
			if (value !== "text" && value !== "json" && value !== "rpc" && value !== "acp")
				throw new Error(`--mode must be text, json, rpc or acp (got "${value}")`);
			args.mode = value;
		},
	},
	{
		names: ["-p", "--print"],
		help: "print mode: run the prompt given as arguments, print the reply, exit",
		apply(args) {
			args.print = true;
		},
	},
	{
		names: ["--provider"],
		value: "NAME",
		help: "the provider to use (anthropic, openai, google, or one from models.json)",
		apply(args, value) {
			args.provider = value;
		},
	},
	{
		names: ["--model", "-m"],
		value: "PATTERN",
		help: "model id, provider/id or a search pattern; an optional :<thinking> suffix sets the level",
		apply(args, value) {
			args.model = value;
		},
	},
	{
		names: ["--thinking"],
		value: "LEVEL",
		help: "thinking level: off, minimal, low, medium, high, xhigh, max",
		apply(args, value) {
			args.thinking = value;
		},
	},
	{
		names: ["--approval-mode"],
		value: "MODE",
		help: "how tool calls are approved: auto (default: all run), ask (the client approves changes), read-only",
		apply(args, value) {
			if (!isApprovalMode(value)) throw new Error(`--approval-mode must be auto, ask or read-only (got "${value}")`);
			args.approvalMode = value;
		},
	},
	{
		names: ["--sandbox"],
		value: "MODE",
		help: "where the model's commands run: off, read-only, workspace-write (docs/sandbox.md)",
		apply(args, value) {
			if (!isSandboxMode(value)) {
				throw new Error(`--sandbox must be off, read-only or workspace-write (got "${value}")`);
			}
			args.sandboxMode = value;
		},
	},
	{
		names: ["--sandbox-check"],
		help: "check what the sandbox can do on this machine (with the settings of this folder) and exit",
		apply(args) {
			args.sandboxCheck = true;
		},
	},
	{
		names: ["--api-key"],
		value: "KEY",
		help: "API key for the selected provider (this process only)",
		apply(args, value) {
			args.apiKey = value;
		},
	},
	{
		names: ["--list-models"],
		help: "list the models Atomic knows (built-in and models.json), optionally filtered by the next argument",
		apply(args) {
			args.listModels = true;
		},
	},
	{
		names: ["--rpc-schema"],
		help: "print the JSON Schema of the RPC protocol (commands, responses, events) and exit",
		apply(args) {
			args.rpcSchema = true;
		},
	},
	{
		names: ["--no-session"],
		help: "keep the session in memory only (no file)",
		apply(args) {
			args.noSession = true;
		},
	},
	{
		names: ["--session-dir"],
		value: "DIR",
		help: "store session files in DIR",
		apply(args, value) {
			args.sessionDir = value;
		},
	},
	{
		names: ["--session"],
		value: "PATH|ID",
		help: "open an existing session by file path, or by id or id prefix in this project",
		apply(args, value) {
			args.session = value;
		},
	},
	{
		names: ["--continue", "-c"],
		help: "continue the most recent session of this directory",
		apply(args) {
			args.continueSession = true;
		},
	},
	{
		names: ["--name", "-n"],
		value: "NAME",
		help: "set the session's display name",
		apply(args, value) {
			const name = value?.trim();
			if (!name) throw new Error("--name requires a non-empty value");
			args.name = name;
		},
	},
	{
		names: ["--extension", "-e"],
		value: "PATH",
		help: "load an extension (a .ts or .js file, or a directory with index.ts); repeatable",
		apply(args, value) {
			if (value) args.extensions.push(value);
		},
	},
	{
		names: ["--no-extensions", "-ne"],
		help: "do not discover extensions in the agent dir and .atomic/extensions (-e still loads)",
		apply(args) {
			args.noExtensions = true;
		},
	},
	{
		names: ["--skill"],
		value: "PATH",
		help: "load a skill (a SKILL.md file or its directory); repeatable",
		apply(args, value) {
			if (value) args.skills.push(value);
		},
	},
	{
		names: ["--no-skills"],
		help: "do not discover skills (--skill still loads)",
		apply(args) {
			args.noSkills = true;
		},
	},
	{
		names: ["--no-prompt-templates"],
		help: "do not discover prompt templates",
		apply(args) {
			args.noPromptTemplates = true;
		},
	},
	{
		names: ["--no-context-files"],
		help: "leave AGENTS.md / CLAUDE.md files out of the system prompt",
		apply(args) {
			args.noContextFiles = true;
		},
	},
	{
		names: ["--tools"],
		value: "LIST",
		help: "built-in tools to enable, comma-separated (read,bash,edit,write,grep,find,ls)",
		apply(args, value) {
			args.tools = (value ?? "")
				.split(",")
				.map((name) => name.trim())
				.filter(Boolean);
		},
	},
	{
		names: ["--no-tools"],
		help: "enable no built-in tools",
		apply(args) {
			args.tools = [];
		},
	},
	{
		names: ["--mcp-config"],
		value: "FILE",
		help: 'MCP servers to start ({"mcpServers": {...}}), besides <agent dir>/mcp.json; repeatable',
		apply(args, value) {
			if (value) args.mcpConfigs.push(value);
		},
	},
	{
		names: ["--fallback-models"],
		value: "LIST",
		help: "comma-separated provider/id patterns to continue on when the model fails for good (overload, 5xx, rate limit, unresolved overflow); repeatable",
		apply(args, value) {
			const patterns = (value ?? "").split(",").map((pattern) => pattern.trim());
			args.fallbackModels = [...(args.fallbackModels ?? []), ...patterns.filter((pattern) => pattern !== "")];
		},
	},
	{
		names: ["--no-mcp"],
		help: "start no MCP server (ignore mcp.json, .mcp.json and --mcp-config)",
		apply(args) {
			args.noMcp = true;
		},
	},
	{
		names: ["--append-system-prompt"],
		value: "TEXT",
		help: "text appended to the system prompt",
		apply(args, value) {
			args.appendSystemPrompt = value;
		},
	},
	{
		names: ["--offline"],
		help: "open no connection before a prompt needs it (as ATOMIC_OFFLINE=1)",
		apply(args) {
			args.offline = true;
		},
	},
	// Flags that clients written for pi-coding-agent pass; they mean nothing here.
	...["--no-themes", "--verbose"].map(
		(name): FlagSpec => ({
			names: [name],
			help: "accepted for compatibility with pi-coding-agent clients; no effect",
			apply() {
				// Nothing to do: Atomic has no themes and logs to stderr already.
			},
		}),
	),
	{
		names: ["--version", "-v"],
		help: "print the version and exit",
		apply(args) {
			args.version = true;
		},
	},
	{
		names: ["--help", "-h"],
		help: "show this help and exit",
		apply(args) {
			args.help = true;
		},
	},
];

const BY_NAME = new Map(FLAGS.flatMap((flag) => flag.names.map((name) => [name, flag] as const)));

/** Parses argv (without node and the script). Throws an Error with a message for the user. */
export function parseArgs(argv: readonly string[]): CliArgs {
	const args: CliArgs = {
		mode: "text",
		print: false,
		messages: [],
		version: false,
		help: false,
		listModels: false,
		noSession: false,
		continueSession: false,
		extensions: [],
		noExtensions: false,
		skills: [],
		noSkills: false,
		noPromptTemplates: false,
		noContextFiles: false,
		mcpConfigs: [],
		noMcp: false,
		offline: false,
	};
	for (let index = 0; index < argv.length; index++) {
		const token = argv[index] as string;
		if (token === "--") {
			args.messages.push(...argv.slice(index + 1));
			break;
		}
		if (!token.startsWith("-") || token === "-") {
			args.messages.push(token);
			continue;
		}
		const equals = token.indexOf("=");
		const name = token.startsWith("--") && equals > 0 ? token.slice(0, equals) : token;
		const flag = BY_NAME.get(name);
		if (!flag) throw new Error(`Unknown option: ${name} (see --help)`);
		// `--continue=false` must not quietly mean --continue.
		if (!flag.value && name !== token) throw new Error(`${name} does not take a value`);
		let value: string | undefined;
		if (flag.value) {
			if (equals > 0 && name !== token) value = token.slice(equals + 1);
			else {
				value = argv[index + 1];
				if (value === undefined) throw new Error(`${name} requires a value`);
				index++;
			}
		}
		flag.apply(args, value);
	}
	if (args.listModels && args.messages.length > 0) args.listModelsSearch = args.messages.shift();
	return args;
}

export function helpText(version: string): string {
	const rows = FLAGS.map((flag) => [`${flag.names.join(", ")}${flag.value ? ` ${flag.value}` : ""}`, flag.help]);
	const width = Math.max(...rows.map(([left]) => (left as string).length));
	const lines = rows.map(([left, right]) => `  ${(left as string).padEnd(width)}  ${right}`);
	return [
		`atomic ${version}: a headless coding agent`,
		"",
		"Usage:",
		"  atomic --mode rpc [options]        JSON-lines protocol on stdin/stdout",
		"  atomic --mode acp [options]        Agent Client Protocol on stdin/stdout (Zed, JetBrains, Neovim)",
		'  atomic -p "prompt" [options]       one prompt, reply on stdout',
		"  atomic --list-models [search]",
		"  atomic serve [--host H] [--port P] [--cwd DIR] [options]  several clients over WebSocket (docs/server.md)",
		"  atomic token create --role controller|observer --name NAME | list | revoke NAME",
		"",
		"Options:",
		...lines,
		"",
		"Config: ~/.atomic/agent (override with ATOMIC_CODING_AGENT_DIR): models.json, settings.json, auth.json.",
	].join("\n");
}
