import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startAgent, stderrShows, uniqueToken, useRpcHarness } from "../rpc/helpers.js";
import { textReply, toolReply } from "../support/llm-server.js";

const harness = useRpcHarness();

/** Every live descendant of `root`, from /proc's parent links. */
function descendants(root: number): number[] {
	const parents = new Map<number, number>();
	for (const name of readdirSync("/proc")) {
		if (!/^\d+$/.test(name)) continue;
		let stat: string;
		try {
			stat = readFileSync(join("/proc", name, "stat"), "utf8");
		} catch (error) {
			// The process ended between the listing and the read.
			if (error instanceof Error && "code" in error && (error.code === "ENOENT" || error.code === "ESRCH")) continue;
			throw error;
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ")".
		const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
		parents.set(Number(name), ppid);
	}
	const found: number[] = [];
	for (const pid of parents.keys()) {
		for (let up = parents.get(pid); up !== undefined && up > 1; up = parents.get(up)) {
			if (up === root) {
				found.push(pid);
				break;
			}
		}
	}
	return found;
}

function environmentOf(pid: number): string {
	try {
		return readFileSync(join("/proc", String(pid), "environ"), "utf8");
	} catch (error) {
		if (error instanceof Error && "code" in error && (error.code === "ENOENT" || error.code === "ESRCH")) return "";
		throw error;
	}
}

/**
 * How long a check of absence looks: a process started "soon" after the preload or a command (a
 * shell kept waiting for the next one was started within 50 ms) has appeared by then.
 */
const SETTLE_MS = 300;

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

describe.skipIf(process.platform !== "linux")("provider keys and the processes the agent starts", () => {
	it("no process the agent started holds a provider key, after the idle preload and after commands", async () => {
		const key = uniqueToken("sk-ant-marker-");
		const { agent } = await startAgent(harness.server, {
			// The keys' own providers would be the default models: the test's server answers instead.
			args: ["--model", "mock/mock-model"],
			env: { ANTHROPIC_API_KEY: key, OPENAI_API_KEY: key, ATOMIC_DEBUG_IDLE: "1" },
		});
		await agent.ok({ type: "get_state" });
		await stderrShows(agent, "preload: done");
		const pid = agent.child.pid;
		if (pid === undefined) throw new Error("the agent has no pid");
		const holders = () => descendants(pid).filter((child) => environmentOf(child).includes(key));
		await settle();
		expect(holders()).toEqual([]);

		harness.server.enqueue(toolReply("bash", { command: "env" }), textReply("done"));
		const { start } = await agent.prompt("show the environment");
		const ends = agent.since(start, "tool_execution_end");
		expect(ends).toHaveLength(1);
		expect(JSON.stringify(ends[0])).not.toContain(key);
		const direct = await agent.request({ type: "bash", command: "env; sleep 0.2" });
		expect(direct.success).toBe(true);
		expect(JSON.stringify(direct)).not.toContain(key);
		// Whatever runs after the commands (nothing should wait for the next one) holds no key either.
		await settle();
		expect(holders()).toEqual([]);
	});
});
