import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { build } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";
import { createSession, openSession } from "../../src/session/open.js";
import { soakSize } from "../support/soak.js";
import { assistant, user, useTempDir, warnings } from "./helpers.js";

const temp = useTempDir();
const KILLS = soakSize(200, 20);
/** Writers started ahead of their turn, so that Node's start-up overlaps the previous round. */
const WARM_WRITERS = 3;
let writerBundle: string;

beforeAll(async () => {
	// The writer runs as plain Node, so it is bundled from TypeScript once.
	writerBundle = join(temp.dir(), "crash-writer.mjs");
	await build({
		entryPoints: [join(import.meta.dirname, "fixtures", "crash-writer.ts")],
		outfile: writerBundle,
		bundle: true,
		platform: "node",
		format: "esm",
		target: "node20",
		logLevel: "warning",
	});
});

interface Writer {
	child: ChildProcess;
	/** Resolves when the process is gone, with what it printed. */
	done: Promise<{ code: number | null; signal: string | null; output: string; errors: string }>;
	/** Resolves at the first id the writer reports. */
	firstId: Promise<void>;
}

/** The writer needs no TLS: loading extra CA certificates would only slow every start-up down. */
const writerEnv = { ...process.env };
delete writerEnv.NODE_EXTRA_CA_CERTS;

/** A writer process that waits on stdin for the file to append to. */
function startWriter(): Writer {
	const child = spawn(process.execPath, [writerBundle], { stdio: ["pipe", "pipe", "pipe"], env: writerEnv });
	let output = "";
	let errors = "";
	let reportFirst: () => void = () => undefined;
	const firstId = new Promise<void>((resolve) => {
		reportFirst = resolve;
	});
	child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
		output += chunk;
		if (output.includes("\n")) reportFirst();
	});
	child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
		errors += chunk;
	});
	const done = new Promise<{ code: number | null; signal: string | null; output: string; errors: string }>(
		(resolve) => {
			child.on("close", (code, signal) => {
				reportFirst();
				resolve({ code, signal, output, errors });
			});
		},
	);
	return { child, done, firstId };
}

/** Lets a warm writer loose on `file`, kills it 1-15 ms after its first reported append, returns its ids. */
async function runAndKill(writer: Writer, file: string): Promise<string[]> {
	writer.child.stdin?.write(`${file}\n`);
	await writer.firstId;
	await new Promise((resolve) => setTimeout(resolve, 1 + Math.random() * 14));
	writer.child.kill("SIGKILL");
	const { code, signal, output, errors } = await writer.done;
	expect({ code, signal, errors }).toEqual({ code: null, signal: "SIGKILL", errors: "" });
	// Only complete lines were reported after their append returned.
	return output.split("\n").slice(0, -1);
}

describe("crash safety", () => {
	it(`keeps every reported entry and stays appendable across ${KILLS} SIGKILLs`, async () => {
		const initial = createSession({ cwd: temp.dir(), sessionDir: temp.dir() });
		initial.appendMessage(user("start"));
		initial.appendMessage(assistant("ready"));
		const file = initial.file ?? "";
		initial.close();

		const warm = Array.from({ length: WARM_WRITERS }, startWriter);
		let reportedTotal = 0;
		try {
			for (let round = 0; round < KILLS; round++) {
				const writer = warm.shift() ?? startWriter();
				if (round + warm.length + 1 < KILLS) warm.push(startWriter());
				const reported = await runAndKill(writer, file);
				reportedTotal += reported.length;

				const afterKill = openSession(file, { warn: () => undefined });
				const ids = new Set(afterKill.entries().map((entry) => entry.id));
				expect(reported.filter((id) => !ids.has(id))).toEqual([]);
				const appended = afterKill.appendMessage(user(`after kill ${round}`));
				afterKill.close();

				const { warn, lines } = warnings();
				const reloaded = openSession(file, { warn });
				expect(lines).toEqual([]);
				expect(reloaded.leafId).toBe(appended.id);
				reloaded.close();
			}
		} finally {
			for (const writer of warm) writer.child.kill("SIGKILL");
			await Promise.all(warm.map((writer) => writer.done));
		}
		expect(reportedTotal).toBeGreaterThanOrEqual(KILLS);
	}, 120_000);
});
