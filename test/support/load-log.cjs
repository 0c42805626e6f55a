// Preloaded with `node --require`: at exit, appends to the file named by ATOMIC_TEST_LOAD_LOG every
// file the process required and every Node module it loaded (`node:<name>`), a line each: what a
// process loaded, for tests of lazy loading.
const { appendFileSync } = require("node:fs");

process.on("exit", () => {
	const log = process.env.ATOMIC_TEST_LOAD_LOG;
	if (!log) return;
	const builtins = process.moduleLoadList
		.filter((entry) => entry.startsWith("NativeModule ") && !entry.startsWith("NativeModule internal/"))
		.map((entry) => `node:${entry.slice("NativeModule ".length)}`);
	const files = Object.keys(require.cache).map((file) => `file://${file}`);
	appendFileSync(log, `${[...files, ...builtins].join("\n")}\n`);
});
