import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { useRpcHarness } from "../rpc/helpers.js";
import { textReply, toolReply } from "../support/llm-server.js";
import { CLI, childEnv, type RpcAgent, type RpcRecord } from "../support/rpc-process.js";
import { describeWithBubblewrap, makeTree, startSandboxed } from "./support.js";

const harness = useRpcHarness();

/** Makes the model ask to run `command` outside the sandbox; answers the request with `decision` (none: not expected). */
async function escalate(
	agent: RpcAgent,
	command: string,
	decision: string | undefined,
): Promise<{ request?: RpcRecord; end: RpcRecord; requests: RpcRecord[] }> {
	const { server } = harness;
	server.enqueue(
		toolReply("bash", { command, escalate: true, justification: "must write the home folder" }),
		textReply("done"),
	);
	const start = agent.mark();
	expect((await agent.request({ type: "prompt", message: "go" })).success).toBe(true);
	let request: RpcRecord | undefined;
	if (decision) {
		request = await agent.waitFor((record) => record.type === "tool_approval_request", { start });
		await agent.ok({ type: "tool_approval_response", requestId: request.id, decision });
	}
	await agent.waitFor((record) => record.type === "agent_settled", { start, timeout: 20_000 });
	const end = agent.since(start, "tool_execution_end")[0] as RpcRecord;
	return { request, end, requests: agent.since(start, "tool_approval_request") };
}

function textOf(end: RpcRecord): string {
	const result = end.result as { content: { text?: string }[] };
	return result.content.map((block) => block.text ?? "").join("");
}

describeWithBubblewrap("sandbox escalation", () => {
	for (const mode of ["auto", "ask"]) {
		it(`always asks the client, in approval mode ${mode}; allow runs that call outside once`, async () => {
			const { server } = harness;
			const tree = makeTree(server, { sandbox: { mode: "workspace-write" }, permissions: { mode } });
			const agent = await startSandboxed(tree);
			const target = join(tree.home, "escalated.txt");
			const allowed = await escalate(agent, `echo x > ${target}`, "allow");
			expect(allowed.requests).toHaveLength(1);
			expect(allowed.request).toMatchObject({ kind: "sandbox_escalation", toolName: "bash" });
			expect(String(allowed.request?.reason)).toContain("must write the home folder");
			expect(allowed.end.isError, textOf(allowed.end)).toBe(false);
			expect(textOf(allowed.end)).toContain("Ran outside the sandbox");
			expect(existsSync(target)).toBe(true);

			const second = join(tree.home, "second.txt");
			const denied = await escalate(agent, `echo x > ${second}`, "deny");
			expect(denied.end.isError).toBe(true);
			expect(existsSync(second)).toBe(false);
		});
	}

	it("allow_always covers later escalations of that command only; without escalate the sandbox holds", async () => {
		const { server } = harness;
		const tree = makeTree(server, { sandbox: { mode: "workspace-write" } });
		const agent = await startSandboxed(tree);
		await escalate(agent, `touch ${tree.home}/one`, "allow_always");
		const again = await escalate(agent, `touch ${tree.home}/two`, undefined);
		expect(again.requests).toHaveLength(0);
		expect(existsSync(join(tree.home, "two"))).toBe(true);
		const other = await escalate(agent, `mkdir ${tree.home}/three`, "deny");
		expect(other.requests).toHaveLength(1);
		expect(existsSync(join(tree.home, "three"))).toBe(false);

		server.enqueue(toolReply("bash", { command: `touch ${tree.home}/four` }), textReply("done"));
		const start = agent.mark();
		await agent.request({ type: "prompt", message: "go" });
		await agent.waitFor((record) => record.type === "agent_settled", { start });
		expect(existsSync(join(tree.home, "four"))).toBe(false);
	});

	it("is denied with nobody to ask (print mode)", async () => {
		const { server } = harness;
		const tree = makeTree(server, { sandbox: { mode: "workspace-write" } });
		const target = join(tree.home, "printed.txt");
		server.enqueue(
			toolReply("bash", { command: `touch ${target}`, escalate: true, justification: "please" }),
			textReply("finished"),
		);
		const child = spawn(process.execPath, [CLI, "--no-session", "--model", "mock/mock-model", "-p", "go"], {
			cwd: tree.work,
			env: childEnv(tree.agentDir, tree.home),
			stdio: ["ignore", "pipe", "pipe"],
		});
		let stdout = "";
		child.stdout.on("data", (chunk: Buffer) => {
			stdout += chunk.toString();
		});
		await new Promise((resolve) => child.on("close", resolve));
		expect(stdout).toContain("finished");
		expect(existsSync(target)).toBe(false);
		const toolResult = JSON.stringify(server.requests.at(-1)?.body ?? "");
		expect(toolResult).toContain("no client can be asked");
	});
});
