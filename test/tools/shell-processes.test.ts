import { afterEach, describe, expect, it, vi } from "vitest";

const scans = vi.hoisted(() => ({ sync: 0 }));

vi.mock("../../src/tools/process-tree.js", async (importOriginal) => {
	const tree = await importOriginal<typeof import("../../src/tools/process-tree.js")>();
	return {
		...tree,
		findProcesses: (...args: Parameters<typeof tree.findProcesses>) => {
			scans.sync++;
			return tree.findProcesses(...args);
		},
		// No group or process is signalled for real: the pids below are made up.
		sendSignal: () => undefined,
		signalProcesses: () => undefined,
	};
});

const { killAllShells, registerShell, shellExited } = await import("../../src/tools/shell-processes.js");

afterEach(() => {
	scans.sync = 0;
});

describe("killAllShells", () => {
	it("looks for no process when no command ever ran (an exit without a shell reads no /proc)", () => {
		killAllShells();
		killAllShells();
		expect(scans.sync).toBe(0);
	});

	it("looks for the processes of the shells once one has run", () => {
		registerShell("test.1", 2 ** 22 + 17);
		shellExited("test.1");
		killAllShells();
		expect(scans.sync).toBe(1);
	});
});
