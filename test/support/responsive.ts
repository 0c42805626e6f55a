/**
 * Checks shared by the tests that feed an agent hostile work (a backtracking pattern, a FIFO, a
 * background child, a burst of commands): while the work runs the process still answers, and it
 * still ends by itself on stdin EOF.
 */
import { expect } from "vitest";
import type { RpcAgent } from "./rpc-process.js";

/** How soon a `get_state` must be answered while hostile work runs. */
export const RESPONSIVE_BUDGET_MS = 1000;

/** How long an agent may take to exit after stdin EOF. */
export const EOF_EXIT_BUDGET_MS = 10_000;

/**
 * Sends `get_state` and requires its response within the budget. The wait itself gives the
 * process longer, so that a slow answer fails with its measured time instead of a timeout.
 */
export async function expectResponsive(agent: RpcAgent, budgetMs = RESPONSIVE_BUDGET_MS): Promise<number> {
	const started = performance.now();
	const response = await agent.request({ type: "get_state" }, Math.max(budgetMs * 5, 5000));
	const elapsed = performance.now() - started;
	expect(response.success, "get_state answered with success").toBe(true);
	expect(elapsed, `get_state answered within ${budgetMs} ms`).toBeLessThan(budgetMs);
	return elapsed;
}

/** Closes stdin and requires the process to exit with code 0 by itself (no signal needed). */
export async function expectExitOnEof(agent: RpcAgent, budgetMs = EOF_EXIT_BUDGET_MS): Promise<void> {
	agent.closeStdin();
	let timer: NodeJS.Timeout | undefined;
	const outcome = await Promise.race([
		agent.exited,
		new Promise<"timeout">((resolve) => {
			timer = setTimeout(() => resolve("timeout"), budgetMs);
		}),
	]);
	clearTimeout(timer);
	expect(outcome, `exited within ${budgetMs} ms of stdin EOF`).not.toBe("timeout");
	expect(outcome).toEqual({ code: 0, signal: null });
}
