/**
 * `npm run demo`: the whole agent, offline. A scripted model server on loopback speaks the real
 * Anthropic streaming protocol; `atomic --mode rpc` runs against it through RpcClient, in a fresh
 * project and agent directory under the system temp dir. The model looks around with `bash`,
 * reads a file with `read`, and answers from what the tools returned.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { RpcClient } from "../src/rpc/client/index.js";
import type { RpcEvent } from "../src/rpc/client/types.js";
import { LlmServer, type RecordedRequest, type ScriptedReply } from "../test/support/llm-server.js";
import { type Palette, palette } from "./palette.js";
import { contentTexts, requestToolResults } from "./tool-results.js";

const MODEL = "demo/scripted-sonnet";
const PROMPT = "What is still left to do in this project? Check the files.";

/** The project the agent works in: a tiny package with a TODO list. */
function createProject(root: string): string {
	const project = join(root, "project");
	mkdirSync(join(project, "src"), { recursive: true });
	writeFileSync(join(project, "package.json"), `${JSON.stringify({ name: "tiny-app", version: "0.1.0" }, null, 2)}\n`);
	writeFileSync(join(project, "src", "index.js"), 'console.log("hello");\n');
	writeFileSync(
		join(project, "TODO.md"),
		"# TODO\n\n- [x] Print a greeting\n- [ ] Read the name from argv\n- [ ] Add a test\n- [ ] Publish 0.2.0\n",
	);
	return project;
}

/** models.json pointing a custom provider at the loopback server (no API key needed). */
function createAgentDir(root: string, server: LlmServer): string {
	const agentDir = join(root, "agent");
	mkdirSync(agentDir, { recursive: true });
	const models = {
		providers: {
			demo: {
				baseUrl: server.baseUrl("anthropic-messages"),
				api: "anthropic-messages",
				models: [
					{
						id: "scripted-sonnet",
						name: "Scripted Sonnet (demo)",
						contextWindow: 200000,
						maxTokens: 8192,
						cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
					},
				],
			},
		},
	};
	writeFileSync(join(agentDir, "models.json"), `${JSON.stringify(models, null, 2)}\n`);
	return agentDir;
}

/** The final answer, written from what the tools actually returned to the model. */
function answerFromTools(request: RecordedRequest): ScriptedReply {
	const todo = requestToolResults(request.body).find((text) => text.includes("# TODO")) ?? "";
	const open = [...todo.matchAll(/- \[ \] (.+)/g)].map((match) => match[1]);
	const done = [...todo.matchAll(/- \[x\] (.+)/g)].length;
	const list = open.map((item) => `- ${item}`).join("\n");
	return {
		blocks: [
			{
				type: "text",
				text: `TODO.md has ${open.length} open items (${done} done):\n\n${list}\n\nThe code in src/index.js only prints a greeting so far, so reading the name from argv is the natural next step.`,
				chunks: 24,
			},
		],
		usage: { input: 1890, output: 96, cacheRead: 1536 },
	};
}

function script(server: LlmServer): void {
	server.enqueue(
		{
			blocks: [
				{ type: "text", text: "Let me look at the project first.", chunks: 4 },
				{ type: "toolCall", name: "bash", arguments: { command: "ls -1 && cat package.json" }, argumentChunks: 3 },
			],
			usage: { input: 1210, output: 42 },
		},
		{
			blocks: [
				{ type: "text", text: "There is a TODO list; I'll read it.", chunks: 4 },
				{ type: "toolCall", name: "read", arguments: { path: "TODO.md" }, argumentChunks: 2 },
			],
			usage: { input: 1402, output: 38, cacheRead: 1024 },
		},
	);
	server.onRequest(answerFromTools);
}

/** Prints events as they stream: assistant text, tool calls and their results. */
function render(colors: Palette): (event: RpcEvent) => void {
	let atLineStart = true;
	const write = (text: string) => {
		process.stdout.write(text);
		if (text.length > 0) atLineStart = text.endsWith("\n");
	};
	const newline = () => {
		if (!atLineStart) write("\n");
	};
	return (event) => {
		if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") {
			write(event.assistantMessageEvent.delta);
		} else if (event.type === "tool_execution_start") {
			newline();
			write(`${colors.tool(`▸ ${event.toolName}`)} ${colors.dim(JSON.stringify(event.args))}\n`);
		} else if (event.type === "tool_execution_end") {
			const text = contentTexts(event.result.content).join("\n").trimEnd();
			const lines = text.split("\n");
			const shown = lines.slice(0, 6).map((line) => `  ${colors.dim("│")} ${line}`);
			const more = lines.length - 6;
			if (more > 0) shown.push(`  ${colors.dim(`│ … ${more} more line${more === 1 ? "" : "s"}`)}`);
			write(`${shown.join("\n")}\n`);
		} else if (event.type === "message_end" && event.message.role === "assistant") {
			newline();
		}
	};
}

async function main(): Promise<void> {
	const colors = palette(process.stdout.isTTY === true && !process.env.NO_COLOR);
	const root = mkdtempSync(join(tmpdir(), "atomic-demo-"));
	const server = await LlmServer.start();
	script(server);
	const project = createProject(root);
	const agentDir = createAgentDir(root, server);
	const client = new RpcClient({
		commandArgs: [resolve(process.cwd(), "dist", "cli.js")],
		args: ["--model", MODEL, "--session-dir", join(root, "sessions")],
		cwd: project,
		env: { ...process.env, ATOMIC_CODING_AGENT_DIR: agentDir },
	});
	try {
		const ready = await client.start();
		console.log(colors.bold(`Atomic ${ready.version}`), colors.dim(`(pid ${ready.pid}, offline demo in ${root})`));
		console.log(`${colors.user("you ›")} ${PROMPT}\n`);
		const stop = client.onEvent(render(colors));
		const outcome = await client.promptAndWait(PROMPT);
		stop();

		const stats = await client.getSessionStats();
		const { tokens } = stats;
		console.log(
			`\n${colors.bold("session")} ${stats.totalMessages} messages, ${stats.toolCalls} tool calls, ` +
				`${tokens.input + tokens.cacheRead} input / ${tokens.output} output tokens, $${stats.cost.toFixed(4)}`,
		);
		const html = await client.exportHtml(join(root, "demo-session.html"));
		console.log(`${colors.bold("export")}  ${html}`);
		console.log(
			`${colors.bold("model")}   ${server.requests.length} requests, ${outcome.messages.length} messages this run`,
		);
	} finally {
		await client.close();
		await server.close();
	}
}

main().catch((error: unknown) => {
	console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
	process.exitCode = 1;
});
