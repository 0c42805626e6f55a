import { vi } from "vitest";
import { describeParity } from "./parity-suite.js";

// Forces the built-in search engine, should another one (ripgrep, fd) be chosen by default. Set
// before any module loads; this file runs in a process of its own (vitest.config.ts).
vi.hoisted(() => {
	process.env.ATOMIC_SEARCH_ENGINE = "builtin";
});

describeParity("ATOMIC_SEARCH_ENGINE=builtin");
