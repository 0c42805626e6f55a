import { spawn } from "node:child_process";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { LlmServer, textReply, toolReply } from "../support/llm-server.js";
import { CLI, childEnv, makeAgentDir } from "../support/rpc-process.js";

interface RunResult {
	code: number | null;
	stdout: string;
	stderr: string;
}

function runCli(args: string[], dirs: { agentDir: string; home: string; work: string }): Promise<RunResult> {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [CLI, ...args], { cwd: dirs.work, env: childEnv(dirs.agentDir, dirs.home) });
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (chunk: Buffer) => {
			stdout += chunk.toString("utf8");
		});
		child.stderr.on("data", (chunk: Buffer) => {
			stderr += chunk.toString("utf8");
		});
		child.on("close", (code) => resolve({ code, stdout, stderr }));
	});
}

function toolResultTexts(body: unknown): string[] {
	const messages = (body as { messages: { role: string; content: unknown }[] }).messages;
	return messages.flatMap((message) =>
		Array.isArray(message.content)
			? (message.content as { type: string; content?: unknown }[])
					.filter((block) => block.type === "tool_result")
					.map((block) => JSON.stringify(block.content))
			: [],
	);
}

describe("print mode", () => {
	let server: LlmServer;
	let dirs: ReturnType<typeof makeAgentDir>;

	beforeAll(async () => {
		server = await LlmServer.start();
	});
	afterAll(async () => {
		await server.close();
	});
	beforeEach(() => {
		server.reset();
		dirs = makeAgentDir({ server });
	});
	afterEach(() => dirs.cleanup());

	it("runs the agent: the model calls bash, gets `hi` back, and the final text is printed", async () => {
		server.enqueue(toolReply("bash", { command: "echo hi" }), textReply("The command printed hi."));
		const result = await runCli(
			["-p", "run echo hi", "--provider", "mock", "--model", "mock-model", "--no-session"],
			dirs,
		);
		expect(result.stderr).toBe("");
		expect(result.code).toBe(0);
		expect(result.stdout).toBe("The command printed hi.\n");
		expect(server.requests).toHaveLength(2);
		const [first, second] = server.requests;
		const tools = (first?.body as { tools?: { name: string }[] } | undefined)?.tools?.map((tool) => tool.name);
		expect(tools).toEqual(["read", "bash", "edit", "write", "grep", "find", "ls"]);
		expect(toolResultTexts(second?.body)).toEqual([JSON.stringify([{ type: "text", text: "hi" }])]);
	});

	it("prints the reply of an openai-completions provider", async () => {
		server.enqueue(textReply("from the completions api"));
		const result = await runCli(["-p", "hello", "--model", "mockoai/mock-model", "--no-session"], dirs);
		expect(result).toMatchObject({ code: 0, stdout: "from the completions api\n" });
		expect(server.requests[0]?.api).toBe("openai-completions");
	});

	it("prints every event as a JSON line in json mode", async () => {
		server.enqueue(textReply("json reply"));
		const result = await runCli(["--mode", "json", "-p", "hi", "--model", "mock/mock-model", "--no-session"], dirs);
		expect(result.code).toBe(0);
		const types = result.stdout
			.trim()
			.split("\n")
			.map((line) => (JSON.parse(line) as { type: string }).type);
		expect(types[0]).toBe("agent_start");
		expect(types.at(-1)).toBe("agent_settled");
		expect(types).toContain("message_update");
		expect(types.filter((type) => type === "agent_end")).toHaveLength(1);
	});

	it("reports a provider error on stderr with exit code 1", async () => {
		server.enqueue({ status: 401 });
		const result = await runCli(["-p", "hi", "--model", "mock/mock-model", "--no-session"], dirs);
		expect(result.code).toBe(1);
		expect(result.stdout).toBe("");
		expect(result.stderr).toMatch(/^Error: 401 /);
	});

	it("fails clearly on an unknown model", async () => {
		const result = await runCli(["-p", "hi", "--model", "nosuch/model-x", "--no-session"], dirs);
		expect(result.code).toBe(1);
		expect(result.stderr).toBe('Error: Model "nosuch/model-x" not found. Use --list-models to see available models.\n');
	});

	it("lists custom models beside the built-in catalog", async () => {
		const result = await runCli(["--list-models"], dirs);
		expect(result.code).toBe(0);
		const lines = result.stdout.trim().split("\n");
		expect(lines[0]).toMatch(/^provider\s+model\s+context\s+max-out\s+thinking\s+input\s+key$/);
		expect(lines.some((line) => /^mock\s+mock-model\s+200K\s+8K\s+no\s+text,image\s+models\.json$/.test(line))).toBe(
			true,
		);
		expect(lines.some((line) => /^mockoai\s+mock-reasoner\s/.test(line))).toBe(true);
		expect(lines.some((line) => line.startsWith("anthropic "))).toBe(true);
		expect(lines.some((line) => line.startsWith("openai "))).toBe(true);
		expect(lines.some((line) => line.startsWith("google "))).toBe(true);
	});

	it("prints the version and the help", async () => {
		const version = await runCli(["--version"], dirs);
		expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
		const help = await runCli(["--help"], dirs);
		for (const flag of [
			"--mode",
			"--provider",
			"--model",
			"--thinking",
			"--list-models",
			"--no-session",
			"--session-dir",
			"--name",
		]) {
			expect(help.stdout).toContain(flag);
		}
	});
});
