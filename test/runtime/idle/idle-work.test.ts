import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it, vi } from "vitest";
import { type IdleStep, type IdleStepReport, IdleWork } from "../../../src/runtime/idle/idle-work.js";
import { preloadSteps } from "../../../src/runtime/idle/preload-steps.js";
import { startSession } from "../helpers.js";

const run = promisify(execFile);

// Counts loads of the Anthropic provider module (which imports the SDK): the factory runs on its
// first import only. (The test support imports the SDK's error classes itself.)
const sdkLoads = vi.hoisted(() => ({ count: 0 }));
vi.mock("../../../src/llm/providers/anthropic-messages.js", async (importOriginal) => {
	sdkLoads.count++;
	return importOriginal();
});

/** Resolves once `check` holds, re-checked on every call of `poke`. */
function until(check: () => boolean): { poke: () => void; reached: Promise<void> } {
	let resolve: () => void = () => undefined;
	const reached = new Promise<void>((done) => {
		resolve = done;
	});
	const poke = () => {
		if (check()) resolve();
	};
	return { poke, reached };
}

describe("IdleWork", () => {
	it("runs every step once it is quiet, in order, and reports each", async () => {
		const ran: string[] = [];
		const steps: IdleStep[] = ["a", "b", "c"].map((name) => ({ name, run: () => void ran.push(name) }));
		const reports: IdleStepReport[] = [];
		const preload = new IdleWork(steps, {
			idleMs: 5,
			isBusy: () => false,
			onStep: (report) => reports.push(report),
		});
		preload.start();
		await preload.finished;
		expect(ran).toEqual(["a", "b", "c"]);
		expect(reports.map((report) => report.name)).toEqual(["a", "b", "c"]);
		expect(preload.remaining).toBe(0);
	});

	it("starts no step while the session is busy, and carries on once it is not", async () => {
		let busy = true;
		let checks = 0;
		const ran: string[] = [];
		const watch = until(() => checks >= 3);
		const preload = new IdleWork([{ name: "a", run: () => void ran.push("a") }], {
			idleMs: 5,
			isBusy: () => {
				checks++;
				watch.poke();
				return busy;
			},
		});
		preload.start();
		await watch.reached;
		// Three idle checks found it busy: nothing ran.
		expect(ran).toEqual([]);
		busy = false;
		await preload.finished;
		expect(ran).toEqual(["a"]);
	});

	it("stops after the running step when input arrives, until it is quiet again", async () => {
		const ran: string[] = [];
		let busy = false;
		let checksAfterInput = 0;
		const watch = until(() => checksAfterInput >= 3);
		let preload: IdleWork | undefined;
		const steps: IdleStep[] = [
			{
				name: "a",
				run: () => {
					ran.push("a");
					// A command arrives while this step runs, and keeps the session busy.
					busy = true;
					preload?.touch();
				},
			},
			{ name: "b", run: () => void ran.push("b") },
		];
		preload = new IdleWork(steps, {
			idleMs: 5,
			isBusy: () => {
				if (busy) {
					checksAfterInput++;
					watch.poke();
				}
				return busy;
			},
		});
		preload.start();
		await watch.reached;
		expect(ran).toEqual(["a"]);
		expect(preload.remaining).toBe(1);
		busy = false;
		preload.touch();
		await preload.finished;
		expect(ran).toEqual(["a", "b"]);
	});

	it("reports a failing step and runs the others", async () => {
		const reports: IdleStepReport[] = [];
		const steps: IdleStep[] = [
			{
				name: "broken",
				run: () => Promise.reject(new Error("no such module")),
			},
			{ name: "fine", run: () => undefined },
		];
		const preload = new IdleWork(steps, {
			idleMs: 1,
			isBusy: () => false,
			onStep: (report) => reports.push(report),
		});
		preload.start();
		await preload.finished;
		expect(reports.map(({ name, error }) => ({ name, error }))).toEqual([
			{ name: "broken", error: "no such module" },
			{ name: "fine", error: undefined },
		]);
	});

	it("runs nothing after stop()", async () => {
		const ran: string[] = [];
		const preload = new IdleWork([{ name: "a", run: () => void ran.push("a") }], {
			idleMs: 1,
			isBusy: () => false,
		});
		preload.start();
		preload.stop();
		await preload.finished;
		expect(ran).toEqual([]);
	});
});

describe("preloadSteps", () => {
	it("covers the model's provider SDK, the connection to its server, the validator, the search worker and the edit tool's diff", async () => {
		const { session } = startSession();
		const steps = preloadSteps(session);
		expect(steps.map((step) => step.name)).toEqual([
			"provider:anthropic-messages",
			"http-client",
			"connect:http://127.0.0.1:9",
			"argument-validator",
			"search:worker",
			"search:warm-up:1",
			"search:warm-up:2",
			"search:warm-up:3",
			"search:warm-up:4",
			"search:warm-up:5",
			"search:warm-up:6",
			"search:warm-up:7",
			"search:warm-up:8",
			"search:warm-up:9",
			"search:warm-up:10",
			"search:warm-up:11",
			"search:warm-up:12",
			"edit:diff",
		]);
		expect(sdkLoads.count).toBe(0);
		const reports: IdleStepReport[] = [];
		const preload = new IdleWork(steps, {
			idleMs: 1,
			isBusy: () => session.isStreaming,
			onStep: (report) => reports.push(report),
		});
		preload.start();
		await preload.finished;
		// Nothing listens at the test model's server: the connection fails, and only it.
		expect(reports.filter((report) => report.error !== undefined)).toEqual([
			{ name: "connect:http://127.0.0.1:9", ms: expect.any(Number), error: expect.stringContaining("ECONNREFUSED") },
		]);
		expect(reports.map((report) => report.name)).toEqual(steps.map((step) => step.name));
		expect(sdkLoads.count).toBe(1);
	});

	it("offers no tool validator or diff when no tool is enabled", () => {
		const { session } = startSession({ create: { tools: [] } });
		expect(preloadSteps(session).map((step) => step.name)).toEqual([
			"provider:anthropic-messages",
			"http-client",
			"connect:http://127.0.0.1:9",
		]);
	});

	it.each(["1", "true", "yes"])("opens no connection with ATOMIC_OFFLINE=%s", (value) => {
		vi.stubEnv("ATOMIC_OFFLINE", value);
		try {
			const { session } = startSession({ create: { tools: [] } });
			expect(preloadSteps(session).map((step) => step.name)).toEqual(["provider:anthropic-messages", "http-client"]);
		} finally {
			vi.unstubAllEnvs();
		}
	});
});

describe("IdleWork in a quiet process", () => {
	it("goes from step to step without waiting for other events to wake the loop", async () => {
		// The fixture's only other handle is a timer 20 s away: a step that waited for the loop to
		// wake would not run before the timer, which reports the stall. V8's memory reducer, whose
		// delayed task wakes the loop some seconds after start, is off so that it cannot hide one.
		const fixture = fileURLToPath(new URL("./fixtures/idle-work-alone.ts", import.meta.url));
		const jiti = fileURLToPath(new URL("../../../node_modules/jiti/lib/jiti-cli.mjs", import.meta.url));
		const { stdout } = await run(process.execPath, ["--no-memory-reducer", jiti, fixture], { timeout: 60_000 });
		expect(stdout.trim()).toBe("finished a,b,c");
	}, 90_000);
});
