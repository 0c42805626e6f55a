import { configDefaults, defineConfig } from "vitest/config";

/**
 * Files that mock a module, check what a first import loads, replace a provider in the process-wide
 * registry, count the process's live shells, listeners, handles or threads, change V8 flags, or set
 * environment variables before any module loads: they need a module graph (and process) of their own. Every other
 * file shares its worker's module graph with the files that ran before it, which saves
 * re-importing the sources and their SDKs for each file (most of a worker's CPU).
 */
const OWN_MODULE_GRAPH = [
	"test/agent/validation.test.ts",
	"test/cli/heap-tuning.test.ts",
	"test/extensions/lazy-jiti.test.ts",
	"test/llm/anthropic-lazy-load.test.ts",
	"test/llm/google-generative-ai.test.ts",
	"test/llm/models-json-validator.test.ts",
	"test/llm/openai-lazy-load.test.ts",
	// Checks that the command validator is not loaded yet: a server test in the same worker loads it.
	"test/llm/quick-check.test.ts",
	"test/llm/timer-limit.test.ts",
	"test/mcp/session.test.ts",
	"test/resources/commands.test.ts",
	"test/robustness/abort.test.ts",
	"test/robustness/provider-faults.test.ts",
	"test/runtime/idle/idle-work.test.ts",
	"test/runtime/soak.test.ts",
	"test/tools/shell-processes.test.ts",
	"test/tools/shell.test.ts",
	"test/tools/bash-c.test.ts",
	"test/tools/search/abort.test.ts",
	"test/tools/search/idle.test.ts",
	"test/tools/search/ignore-semantics.test.ts",
	"test/tools/search/parity.test.ts",
];

export default defineConfig({
	test: {
		testTimeout: 30_000,
		hookTimeout: 30_000,
		pool: "forks",
		// Most test time is spent waiting on spawned agents and loopback servers, not on the CPU:
		// more workers than cores keep both cores busy (vitest's default is one fewer than cores).
		maxWorkers: 4,
		globalSetup: ["test/support/global-setup.ts"],
		projects: [
			{ extends: true, test: { name: "isolated", include: OWN_MODULE_GRAPH } },
			{
				extends: true,
				test: {
					name: "shared",
					include: ["test/**/*.test.ts"],
					exclude: [...configDefaults.exclude, ...OWN_MODULE_GRAPH],
					isolate: false,
				},
			},
		],
	},
});
