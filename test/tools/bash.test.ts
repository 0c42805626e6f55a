import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { AgentTool, AgentToolResult } from "../../src/agent/types.js";
import { type BashToolDetails, createBashTool } from "../../src/tools/bash.js";
import { killAllShells } from "../../src/tools/shell-processes.js";
import { livingProcesses } from "./process-helpers.js";

const root = mkdtempSync(join(tmpdir(), "atomic-bash-test-"));
const spillDir = join(root, "spill");
const tool = createBashTool({ cwd: root, spillDir });

afterEach(() => {
	// A failed test must not leave its processes behind.
	killAllShells();
});
afterAll(() => {
	rmSync(root, { recursive: true, force: true });
});

interface Update {
	text: string;
	at: number;
	details: unknown;
}

function textOf(result: AgentToolResult<unknown>): string {
	return result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

function execute(args: { command: string; timeout?: number }, signal = new AbortController().signal) {
	const updates: Update[] = [];
	let announceFirstUpdate: () => void = () => undefined;
	const firstUpdate = new Promise<void>((resolve) => {
		announceFirstUpdate = resolve;
	});
	const done = tool.execute("call-1", args, signal, (partial) => {
		updates.push({ text: textOf(partial), at: Date.now(), details: partial.details });
		announceFirstUpdate();
	});
	return { done, updates, firstUpdate };
}

function numberLines(from: number, to: number): string {
	const lines: number[] = [];
	for (let value = from; value <= to; value++) lines.push(value);
	return lines.join("\n");
}

describe("bash tool definition", () => {
	it("is an AgentTool named bash with described parameters", () => {
		const asAgentTool: AgentTool = tool;
		expect(asAgentTool.name).toBe("bash");
		expect(tool.description).toContain(root);
		expect(tool.description).toContain("last 2000 lines or 50 KB");
		expect(Object.keys(tool.parameters.properties)).toEqual(["command", "timeout", "escalate", "justification"]);
		expect(tool.parameters.required).toEqual(["command"]);
		expect(tool.parameters.properties.command).toMatchObject({ type: "string", description: expect.any(String) });
		expect(tool.parameters.properties.timeout).toMatchObject({
			type: "number",
			description: expect.stringContaining("Seconds"),
		});
	});
});

describe("bash tool results", () => {
	it("returns the output and the exit code", async () => {
		const { done } = execute({ command: "echo hello; echo there >&2" });
		const result = await done;
		expect(result).toEqual({ content: [{ type: "text", text: "hello\nthere" }], details: { exitCode: 0 } });
	});

	it('says "(no output)" for a silent command', async () => {
		const result = await execute({ command: "true" }).done;
		expect(textOf(result)).toBe("(no output)");
	});

	it("shows the last lines and where the full output is when the line limit cuts it", async () => {
		const result = await execute({ command: "seq 1 3000" }).done;
		const details = result.details as BashToolDetails;
		const path = details.fullOutputPath ?? "";
		expect(path).toMatch(/atomic-bash-\d+-[0-9a-f]{16}\.log$/);
		expect(textOf(result)).toBe(
			`${numberLines(1001, 3000)}\n\n[Showing lines 1001-3000 of 3000. Full output: ${path}]`,
		);
		expect(details.truncation).toMatchObject({ truncatedBy: "lines", totalLines: 3000, outputLines: 2000 });
		expect(readFileSync(path, "utf8")).toBe(`${numberLines(1, 3000)}\n`);
		expect(result.isError).toBeUndefined();
	});

	it("mentions the size limit when the byte limit cuts the output", async () => {
		// 1000 lines of 99 digits: 512 lines (51199 bytes) fit in 50 KB.
		const result = await execute({ command: "seq -f '%099g' 1 1000" }).done;
		const path = (result.details as BashToolDetails).fullOutputPath ?? "";
		const text = textOf(result);
		expect(text.endsWith(`\n\n[Showing lines 489-1000 of 1000 (50.0KB limit). Full output: ${path}]`)).toBe(true);
		expect(text.startsWith(`${"0".repeat(96)}489\n`)).toBe(true);
	});

	it("shows the end of a single line that alone is over the limit", async () => {
		const result = await execute({ command: "head -c 60000 /dev/zero | tr '\\0' y" }).done;
		const path = (result.details as BashToolDetails).fullOutputPath ?? "";
		expect(textOf(result)).toBe(`${"y".repeat(51200)}\n\n[Showing the last 50.0KB of line 1. Full output: ${path}]`);
	});

	it("returns a non-zero exit as an error result with the output", async () => {
		const result = await execute({ command: "echo oops; exit 3" }).done;
		expect(result).toEqual({
			content: [{ type: "text", text: "oops\n\nCommand exited with code 3" }],
			details: { exitCode: 3 },
			isError: true,
		});
	});

	it("returns a command killed by a signal as an error result", async () => {
		const result = await execute({ command: "echo dying; kill -9 $$" }).done;
		expect(result).toEqual({
			content: [{ type: "text", text: "dying\n\nCommand was killed by SIGKILL" }],
			details: {},
			isError: true,
		});
	});
});

describe("bash tool stopping", () => {
	it('throws "Command aborted" with the output so far and kills the command', async () => {
		const controller = new AbortController();
		const { done, firstUpdate } = execute({ command: "echo started; sleep 30.201" }, controller.signal);
		await firstUpdate;
		controller.abort();
		await expect(done).rejects.toThrow(/^started\n\nCommand aborted$/);
		expect(livingProcesses(["sleep", "30.201"])).toEqual([]);
	});

	it('throws "Command aborted" without output when aborted before starting', async () => {
		await expect(execute({ command: "echo never" }, AbortSignal.abort()).done).rejects.toThrow(/^Command aborted$/);
	});

	it("throws a timeout error with the output so far", async () => {
		const { done } = execute({ command: "echo before; sleep 30.202", timeout: 0.2 });
		await expect(done).rejects.toThrow(/^before\n\nCommand timed out after 0\.2 seconds$/);
		expect(livingProcesses(["sleep", "30.202"])).toEqual([]);
	});

	it("rejects a timeout that is not a positive number of seconds", async () => {
		for (const timeout of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
			await expect(execute({ command: "touch ran", timeout }).done).rejects.toThrow(
				/^timeout must be a positive number of seconds$/,
			);
		}
		expect(() => readFileSync(join(root, "ran"))).toThrow(/ENOENT/);
	});
});

describe("bash tool progress", () => {
	it("throttles updates and ends with one holding the final text", async () => {
		const command = "for i in $(seq 1 1000); do echo $i; if [ $((i % 100)) = 0 ]; then sleep 0.03; fi; done";
		const started = Date.now();
		const { done, updates } = execute({ command });
		const result = await done;
		const elapsed = Date.now() - started;
		expect(textOf(result)).toBe(numberLines(1, 1000));
		expect(updates.length).toBeGreaterThanOrEqual(2);
		expect(updates.length).toBeLessThanOrEqual(Math.ceil(elapsed / 50) + 1);
		// Every update but the closing one waits its turn (timers may fire a millisecond or two early by Date.now).
		for (let index = 1; index < updates.length - 1; index++) {
			expect((updates[index] as Update).at - (updates[index - 1] as Update).at).toBeGreaterThanOrEqual(45);
		}
		const last = updates[updates.length - 1] as Update;
		expect(last.text).toBe(`${numberLines(1, 1000)}\n`);
		expect(last.details).toEqual({ truncation: null, fullOutputPath: null });
	});

	it("sends no update for a command without output", async () => {
		const { done, updates } = execute({ command: "true" });
		await done;
		expect(updates).toEqual([]);
	});
});

describe("bash timeout range", () => {
	it("takes a timeout beyond the longest timer (about 24.8 days) as that, instead of killing at once", async () => {
		const result = await tool.execute(
			"call",
			{ command: "sleep 0.2; echo finished", timeout: 3e6 },
			new AbortController().signal,
			() => undefined,
		);
		expect(result.content).toEqual([{ type: "text", text: "finished" }]);
		expect(result.isError).toBeUndefined();
	});
});
