/**
 * Runs the black-box conformance suite (when it is beside this checkout, as in CI) with every
 * agent it starts wrapped in a recorder, then checks every record the agents wrote against the
 * RPC schema: the schema describes what the suite sees, not only what our own tests see.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { outputDefinitionName } from "../../src/rpc/protocol/schema-defs.js";
import { SOAK } from "../support/soak.js";
import { typeboxErrors } from "./schema-check.js";

/**
 * Checks of the suite (name substrings) whose agents write every kind of record: a prompt's events,
 * messages and state, a tool round trip, a queued follow-up, bash updates and compaction.
 */
const SAMPLE_CHECKS = [
	"prompt_event_order",
	"get_messages_after_prompt",
	"tool_call_round_trip",
	"follow_up_via_prompt",
	"bash_streaming_updates",
	"compact_verbatim",
	"compact_events",
];

const root = resolve(import.meta.dirname, "../..");
const suite = resolve(root, "../shared/conformance/run");
const hasPython = spawnSync("python3", ["--version"]).status === 0;
const outDir = mkdtempSync(join(tmpdir(), "atomic-conformance-records-"));

afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe.skipIf(!existsSync(suite) || !hasPython)("the conformance suite's records", () => {
	it("all match the RPC schema", { timeout: 600_000 }, () => {
		const recorder = join(root, "test/support/record-rpc.mjs");
		// npm test runs a sample of the suite's checks; npm run soak runs all of them.
		const sample = SOAK ? [] : SAMPLE_CHECKS.flatMap((name) => ["-k", name]);
		const run = spawnSync(suite, ["--known-failures", join(root, "test/conformance-known-failures.txt"), ...sample], {
			cwd: root,
			encoding: "utf8",
			env: {
				...process.env,
				ATOMIC_CMD: `${process.execPath} ${recorder} ${outDir} ${join(root, "dist/cli.js")}`,
				// Other test files run beside this one: give the suite's own timeouts room.
				CONFORMANCE_TIMEOUT_SCALE: "3",
			},
		});
		expect(run.status, run.stdout + run.stderr).toBe(0);

		let records = 0;
		const violations: string[] = [];
		for (const file of readdirSync(outDir)) {
			const lines = readFileSync(join(outDir, file), "utf8").split("\n");
			// A process killed mid-write may leave its last line unfinished.
			lines.pop();
			for (const line of lines) {
				const record = JSON.parse(line) as Record<string, unknown>;
				records++;
				const errors = typeboxErrors(outputDefinitionName(record) ?? "OutputRecord", record);
				if (errors.length > 0) violations.push(`${line.slice(0, 300)}\n  ${errors.slice(0, 3).join("\n  ")}`);
			}
		}
		expect(violations.slice(0, 5)).toEqual([]);
		// The suite runs dozens of agents; a handful of records would mean the recorder saw nothing.
		expect(records).toBeGreaterThan(SOAK ? 500 : 50);
	});
});
