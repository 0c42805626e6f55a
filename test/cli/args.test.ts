import { describe, expect, it } from "vitest";
import { type CliArgs, FLAGS, helpText, parseArgs } from "../../src/cli/args.js";

const defaults: CliArgs = {
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

describe("parseArgs", () => {
	it("returns the defaults for no arguments", () => {
		expect(parseArgs([])).toEqual(defaults);
	});

	it.each([
		[["--mode", "json"], { mode: "json" }],
		[["--mode", "rpc"], { mode: "rpc" }],
		[["--mode", "text"], { mode: "text" }],
		[["-p"], { print: true }],
		[["--print"], { print: true }],
		[["--provider", "openai"], { provider: "openai" }],
		[["--model", "sonnet:high"], { model: "sonnet:high" }],
		[["-m", "gpt"], { model: "gpt" }],
		[["--thinking", "low"], { thinking: "low" }],
		[["--api-key", "sk-1"], { apiKey: "sk-1" }],
		[["--approval-mode", "ask"], { approvalMode: "ask" }],
		[["--approval-mode", "read-only"], { approvalMode: "read-only" }],
		[["--sandbox", "workspace-write"], { sandboxMode: "workspace-write" }],
		[["--sandbox-check"], { sandboxCheck: true }],
		[["--list-models"], { listModels: true }],
		[["--no-session"], { noSession: true }],
		[["--session-dir", "/tmp/s"], { sessionDir: "/tmp/s" }],
		[["--session", "abc123"], { session: "abc123" }],
		[["--continue"], { continueSession: true }],
		[["-c"], { continueSession: true }],
		[["--name", "My run"], { name: "My run" }],
		[["-n", "short"], { name: "short" }],
		[["--version"], { version: true }],
		[["-v"], { version: true }],
		[["--help"], { help: true }],
		[["--rpc-schema"], { rpcSchema: true }],
		[["-h"], { help: true }],
		[["-e", "a.ts", "--extension", "b.ts"], { extensions: ["a.ts", "b.ts"] }],
		[["--no-extensions"], { noExtensions: true }],
		[["-ne"], { noExtensions: true }],
		[["--skill", "s1", "--skill", "s2"], { skills: ["s1", "s2"] }],
		[["--no-skills"], { noSkills: true }],
		[["--no-prompt-templates"], { noPromptTemplates: true }],
		[["--no-context-files"], { noContextFiles: true }],
		[["--tools", "read, bash,,grep"], { tools: ["read", "bash", "grep"] }],
		[["--no-tools"], { tools: [] }],
		[["--append-system-prompt", "Be terse."], { appendSystemPrompt: "Be terse." }],
		[["--mcp-config", "a.json", "--mcp-config=b.json"], { mcpConfigs: ["a.json", "b.json"] }],
		[["--no-mcp"], { noMcp: true }],
		[["--offline"], { offline: true }],
		[["--no-themes", "--verbose"], {}],
	])("parses %j", (argv, expected) => {
		expect(parseArgs(argv)).toEqual({ ...defaults, ...expected });
	});

	it("covers every name of every flag in FLAGS", () => {
		const tested = new Set([
			"--mode",
			"-p",
			"--print",
			"--provider",
			"--model",
			"-m",
			"--thinking",
			"--api-key",
			"--approval-mode",
			"--sandbox",
			"--sandbox-check",
			"--fallback-models",
			"--list-models",
			"--no-session",
			"--session-dir",
			"--session",
			"--continue",
			"-c",
			"--name",
			"-n",
			"--version",
			"-v",
			"--help",
			"-h",
			"--rpc-schema",
			"--extension",
			"-e",
			"--no-extensions",
			"-ne",
			"--skill",
			"--no-skills",
			"--no-prompt-templates",
			"--no-context-files",
			"--tools",
			"--no-tools",
			"--append-system-prompt",
			"--mcp-config",
			"--no-mcp",
			"--no-themes",
			"--offline",
			"--verbose",
		]);
		expect(new Set(FLAGS.flatMap((flag) => flag.names))).toEqual(tested);
	});

	it("accepts --flag=value, keeping any further '=' in the value", () => {
		expect(parseArgs(["--model=openai/gpt", "--mode=json", "--api-key=a=b=c"])).toEqual({
			...defaults,
			model: "openai/gpt",
			mode: "json",
			apiKey: "a=b=c",
		});
		expect(parseArgs(["--session-dir="]).sessionDir).toBe("");
	});

	it("collects messages around flags, in order", () => {
		expect(parseArgs(["hello", "-p", "world", "--model", "m", "again"])).toEqual({
			...defaults,
			print: true,
			model: "m",
			messages: ["hello", "world", "again"],
		});
	});

	it("treats a lone '-' as a message", () => {
		expect(parseArgs(["-"]).messages).toEqual(["-"]);
	});

	it("stops reading options after --", () => {
		expect(parseArgs(["-p", "--", "--model", "-x", "text"])).toEqual({
			...defaults,
			print: true,
			messages: ["--model", "-x", "text"],
		});
	});

	it("lets the last occurrence of a flag win", () => {
		expect(parseArgs(["--model", "a", "-m", "b"]).model).toBe("b");
	});

	it.each([["--model"], ["-m"], ["--provider"], ["--mode"], ["--session"], ["--name"]])(
		"requires a value after %s",
		(flag) => {
			expect(() => parseArgs(["-p", flag])).toThrow(`${flag} requires a value`);
		},
	);

	it("rejects an unknown mode", () => {
		expect(() => parseArgs(["--mode", "tui"])).toThrow('--mode must be text, json, rpc or acp (got "tui")');
		expect(() => parseArgs(["--mode="])).toThrow('--mode must be text, json, rpc or acp (got "")');
		expect(() => parseArgs(["--sandbox", "full"])).toThrow(
			'--sandbox must be off, read-only or workspace-write (got "full")',
		);
		expect(() => parseArgs(["--approval-mode", "sometimes"])).toThrow(
			'--approval-mode must be auto, ask or read-only (got "sometimes")',
		);
	});

	it.each([["--bogus"], ["-x"], ["--bogus=1"], ["-m=gpt"]])("rejects the unknown option %s", (token) => {
		const name = token.startsWith("--") ? token.split("=")[0] : token;
		expect(() => parseArgs([token])).toThrow(`Unknown option: ${name} (see --help)`);
	});

	it.each([["--print=no"], ["--no-session=false"], ["--continue=0"], ["--help=x"]])(
		"rejects a value given to %s, a flag that takes none",
		(token) => {
			expect(() => parseArgs([token])).toThrow(`${token.split("=")[0]} does not take a value`);
		},
	);

	it("trims --name and rejects an empty one", () => {
		expect(parseArgs(["--name", "  spaced out  "]).name).toBe("spaced out");
		expect(parseArgs(["--name=  x "]).name).toBe("x");
		expect(() => parseArgs(["--name", "   "])).toThrow("--name requires a non-empty value");
		expect(() => parseArgs(["--name="])).toThrow("--name requires a non-empty value");
	});

	it("takes the first message after --list-models as its search term", () => {
		expect(parseArgs(["--list-models", "sonnet"])).toEqual({
			...defaults,
			listModels: true,
			listModelsSearch: "sonnet",
		});
		expect(parseArgs(["claude", "--list-models", "extra"])).toMatchObject({
			listModelsSearch: "claude",
			messages: ["extra"],
		});
		expect(parseArgs(["--list-models"]).listModelsSearch).toBeUndefined();
	});

	it("does not treat messages as a search term without --list-models", () => {
		expect(parseArgs(["sonnet"])).toEqual({ ...defaults, messages: ["sonnet"] });
	});
});

describe("helpText", () => {
	const text = helpText("1.2.3");

	it("names the version", () => {
		expect(text.split("\n")[0]).toBe("atomic 1.2.3: a headless coding agent");
	});

	it("lists every flag name, value placeholder and help line of FLAGS", () => {
		for (const flag of FLAGS) {
			const names = flag.names.join(", ");
			const line = text
				.split("\n")
				.find((candidate) => candidate.trimStart().startsWith(`${names}${flag.value ? " " : ""}`));
			expect(line, `no help line for ${names}`).toBeDefined();
			if (flag.value) expect(line).toContain(`${names} ${flag.value}`);
			expect(line).toContain(flag.help);
		}
	});

	it("aligns the help column of the option table", () => {
		const lines = text.split("\n");
		const options = lines.slice(lines.indexOf("Options:") + 1, lines.indexOf("Options:") + 1 + FLAGS.length);
		const columns = new Set(options.map((line, index) => line.indexOf(FLAGS[index]?.help ?? "\u0000")));
		expect(columns.size).toBe(1);
		expect([...columns][0]).toBeGreaterThan(0);
	});
});
