import { vi } from "vitest";
import { describeParity } from "./parity-suite.js";

// HOME and XDG_CONFIG_HOME point at empty folders, so that no global git excludes or fd ignore file
// of the machine's user reaches rg, fd or Atomic. Set before any module loads; this file runs in a
// process of its own (vitest.config.ts).
vi.hoisted(() => {
	const base = `${process.env.TMPDIR ?? "/tmp"}/atomic-parity-env-${process.pid}`;
	process.env.HOME = `${base}/home`;
	process.env.XDG_CONFIG_HOME = `${base}/xdg`;
});

describeParity("the search engine");
