// Runs the CLI with the given arguments and copies everything it writes to stdout into
// <outDir>/<pid>.jsonl as well, so that a black-box run (the conformance suite, through its
// ATOMIC_CMD) leaves a transcript of every record behind:
//   node test/support/record-rpc.mjs <outDir> <cli.js> [args...]
import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { join } from "node:path";

const [outDir, cli, ...args] = process.argv.slice(2);
if (!outDir || !cli) {
	process.stderr.write("usage: record-rpc.mjs <outDir> <cli.js> [args...]\n");
	process.exit(2);
}
const transcript = createWriteStream(join(outDir, `${process.pid}.jsonl`));
const child = spawn(process.execPath, [cli, ...args], { stdio: ["inherit", "pipe", "inherit"] });
child.stdout.on("data", (chunk) => {
	transcript.write(chunk);
	process.stdout.write(chunk);
});
child.on("exit", (code, signal) => {
	transcript.end(() => {
		if (signal) process.kill(process.pid, signal);
		else process.exit(code ?? 1);
	});
});
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
