import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { runShell } from "../../src/tools/shell.js";
import { keepSpillFilesOf, setSpillBudget, spillFileUsage } from "../../src/tools/spill-files.js";

const root = mkdtempSync(join(tmpdir(), "atomic-spill-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
beforeEach(() => setSpillBudget(256 * 1024 * 1024));

/** A command whose output (1,500 bytes) is cut to a 100-byte tail, so that it is saved in full. */
async function spill(): Promise<string> {
	const result = await runShell({
		command: "head -c 1500 /dev/zero | tr '\\0' x",
		cwd: root,
		spillDir: root,
		maxBytes: 100,
	});
	if (!result.fullOutputPath) throw new Error("the output was not saved");
	return result.fullOutputPath;
}

describe("the budget of saved outputs", () => {
	it("removes the oldest files first to keep the total within it", async () => {
		setSpillBudget(3200);
		const first = await spill();
		const second = await spill();
		expect([existsSync(first), existsSync(second)]).toEqual([true, true]);
		const third = await spill();
		expect([existsSync(first), existsSync(second), existsSync(third)]).toEqual([false, true, true]);
		expect(spillFileUsage().paths).not.toContain(first);
		expect(spillFileUsage().totalBytes).toBeLessThanOrEqual(3200);
	});

	it("cuts a file the open files alone do not leave room for, and says why", async () => {
		setSpillBudget(1000);
		const path = await spill();
		expect(readFileSync(path, "utf8")).toBe(
			`${"x".repeat(1000)}\n[Saved outputs reached 1000B; the rest was not saved]\n`,
		);
	});
});

describe("keeping saved outputs", () => {
	it("makes a file a recorded message refers to read-only, and leaves other files alone", async () => {
		const path = await spill();
		expect(statSync(path).mode & 0o777).toBe(0o600);
		keepSpillFilesOf({
			role: "bashExecution",
			command: "x",
			output: "",
			cancelled: false,
			truncated: true,
			fullOutputPath: path,
			timestamp: 0,
		});
		expect(statSync(path).mode & 0o777).toBe(0o400);
		const other = join(root, "not-ours.log");
		writeFileSync(other, "someone else's", { mode: 0o644 });
		keepSpillFilesOf({
			role: "toolResult",
			toolCallId: "c",
			toolName: "bash",
			content: [],
			details: { fullOutputPath: other },
			isError: false,
			timestamp: 0,
		});
		expect(statSync(other).mode & 0o777).toBe(0o644);
	});
});
