// The `atomic` executable: turns on the code cache for the CLI's chunks, then runs the CLI.
import { useCompileCache } from "./compile-cache.js";

useCompileCache();
import("./main.js").catch((error: unknown) => {
	process.stderr.write(`Error: Atomic failed to load: ${error instanceof Error ? error.message : String(error)}\n`);
	process.exitCode = 1;
});
