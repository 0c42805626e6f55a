import { defineConfig } from "vitest/config";

export default defineConfig({
	test: {
		include: ["test/**/*.test.ts"],
		testTimeout: 30_000,
		hookTimeout: 30_000,
		pool: "forks",
		// Most test time is spent waiting on spawned agents and loopback servers, not on the CPU:
		// more workers than cores keep both cores busy (vitest's default is one fewer than cores).
		maxWorkers: 4,
		globalSetup: ["test/support/global-setup.ts"],
	},
});
