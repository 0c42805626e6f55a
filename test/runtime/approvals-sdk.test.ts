import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
	type AgentSession,
	type AgentSessionEvent,
	type ApprovalHandler,
	type CreateAgentSessionOptions,
	createAgentSession,
	type ToolApprovalRequest,
} from "../../src/index.js";
import type { ScriptedReply } from "../support/llm-server.js";
import { makeAgentDir } from "../support/rpc-process.js";
import { type ScriptedStep, scriptedStream } from "../support/scripted-stream.js";

const PROVIDERS = {
	scripted: {
		baseUrl: "http://127.0.0.1:1",
		api: "anthropic-messages",
		apiKey: "test-key",
		models: [{ id: "scripted-model", name: "Scripted", contextWindow: 100_000, maxTokens: 4096 }],
	},
};

const sessions: AgentSession[] = [];
const trees: ReturnType<typeof makeAgentDir>[] = [];

afterEach(async () => {
	for (const session of sessions.splice(0)) await session.dispose();
	for (const tree of trees.splice(0)) tree.cleanup();
});

function bash(id: string, command: string): ScriptedReply {
	return { blocks: [{ type: "toolCall", id, name: "bash", arguments: { command } }] };
}

function text(reply: string): ScriptedReply {
	return { blocks: [{ type: "text", text: reply }] };
}

/** An in-process session on the scripted model, in its own temporary tree. */
function start(steps: ScriptedStep[], options: CreateAgentSessionOptions = {}, project?: Record<string, unknown>) {
	const tree = makeAgentDir({ providers: PROVIDERS, settings: { permissions: { mode: "ask" } } });
	trees.push(tree);
	if (project) {
		mkdirSync(join(tree.work, ".atomic"), { recursive: true });
		writeFileSync(join(tree.work, ".atomic", "settings.json"), JSON.stringify(project));
	}
	const { session } = createAgentSession({
		cwd: tree.work,
		agentDir: tree.agentDir,
		env: { PATH: process.env.PATH, HOME: tree.home },
		noSession: true,
		persistDefaults: false,
		streamFunction: scriptedStream(...steps),
		...options,
	});
	sessions.push(session);
	const events: AgentSessionEvent[] = [];
	session.subscribe((event) => {
		events.push(event);
	});
	return { session, events, work: tree.work };
}

function resultTexts(session: AgentSession): string[] {
	return session.messages.flatMap((message) =>
		message.role === "toolResult"
			? [message.content.map((block) => (block.type === "text" ? block.text : "")).join("")]
			: [],
	);
}

describe("createAgentSession({ approve })", () => {
	it("calls the handler with the request and a signal; its decision decides the call", async () => {
		const requests: ToolApprovalRequest[] = [];
		const signals: AbortSignal[] = [];
		const approve: ApprovalHandler = (request, signal) => {
			requests.push(request);
			signals.push(signal);
			return "allow";
		};
		const { session, events, work } = start([bash("c1", "echo ran > ran.txt"), text("done")], { approve });
		expect(session.approvalMode).toBe("ask");
		expect(session.getState().approvalMode).toBe("ask");
		await session.prompt("go");
		expect(requests).toEqual([
			{
				id: expect.any(String),
				toolCallId: "c1",
				toolName: "bash",
				args: { command: "echo ran > ran.txt" },
				reason: "approval mode ask: bash is not read-only",
				options: ["allow", "allow_always", "deny", "deny_always"],
				timeout: 60000,
				expiresAt: expect.any(String),
				alwaysRule: "bash(echo *)",
			},
		]);
		// The request is over: its signal says so.
		expect(signals[0]?.aborted).toBe(true);
		expect(existsSync(join(work, "ran.txt"))).toBe(true);
		expect(events.filter((event) => event.type.startsWith("tool_approval")).map((event) => event.type)).toEqual([
			"tool_approval_request",
			"tool_approval_resolved",
		]);
	});

	it("accepts { decision, message }; a throw, a rejection or a non-answer denies", async () => {
		const answers: ApprovalHandler[] = [
			() => ({ decision: "deny", message: "use the Makefile" }),
			() => {
				throw new Error("boom");
			},
			async () => Promise.reject(new Error("network down")),
			// A handler written in plain JavaScript may answer anything.
			() => JSON.parse('{"verdict":"yes"}'),
		];
		const steps = answers.flatMap((_, index) => [bash(`c${index}`, "echo x"), text("ok")]);
		let next = 0;
		const { session } = start(steps, {
			approve: (request, signal) => (answers[next++] as ApprovalHandler)(request, signal),
		});
		for (let index = 0; index < answers.length; index++) await session.prompt(`go ${index}`);
		expect(resultTexts(session)).toEqual([
			"Denied by the user: use the Makefile",
			"Denied: the approval handler failed (boom)",
			"Denied: the approval handler failed (network down)",
			"Denied: the approval handler gave no decision",
		]);
	});

	it("asks for the calls of a parallel batch together", async () => {
		const pending: ((answer: "allow" | "deny") => void)[] = [];
		const { session } = start(
			[
				{
					blocks: [
						{ type: "toolCall", id: "p1", name: "bash", arguments: { command: "echo 1" } },
						{ type: "toolCall", id: "p2", name: "bash", arguments: { command: "echo 2" } },
					],
				},
				text("done"),
			],
			{
				approve: () =>
					new Promise((resolve) => {
						pending.push(resolve);
						// Both are open before either is answered.
						if (pending.length === 2) {
							pending[1]?.("deny");
							pending[0]?.("allow");
						}
					}),
			},
		);
		await session.prompt("go");
		expect(resultTexts(session)).toEqual(["1", "Denied by the user"]);
	});

	it("abort ends open requests: the handler's signal aborts and abort() resolves", async () => {
		let signal: AbortSignal | undefined;
		let opened: () => void = () => undefined;
		const open = new Promise<void>((resolve) => (opened = resolve));
		const { session, events } = start([bash("a1", "echo 1"), text("never")], {
			approve: (_request, requestSignal) => {
				signal = requestSignal;
				opened();
				return new Promise(() => undefined);
			},
		});
		const prompt = session.prompt("go");
		await open;
		await session.abort();
		await prompt;
		expect(signal?.aborted).toBe(true);
		expect(events.filter((event) => event.type === "tool_approval_resolved")).toMatchObject([
			{ decision: "deny", by: "abort" },
		]);
		expect(resultTexts(session)).toEqual(["Operation aborted"]);
	});

	it("without a handler, ask denies with No client to approve", async () => {
		const { session, events } = start([bash("n1", "echo 1"), text("ok")]);
		await session.prompt("go");
		expect(resultTexts(session)).toEqual(["No client to approve"]);
		expect(events.filter((event) => event.type.startsWith("tool_approval"))).toEqual([]);
	});

	it("runs an extension tool marked readOnly without asking in ask and read-only; other extension tools are asked or denied", async () => {
		const extension = `export default (pi) => {
	for (const [name, readOnly] of [["lookup", true], ["launch", false]]) {
		pi.registerTool({
			name,
			description: name,
			readOnly,
			parameters: { type: "object", properties: {} },
			execute: async () => ({ content: [{ type: "text", text: name + " ran" }] }),
		});
	}
};
`;
		const calls = (): ScriptedReply[] => [
			{ blocks: [{ type: "toolCall", id: "l1", name: "lookup", arguments: {} }] },
			{ blocks: [{ type: "toolCall", id: "l2", name: "launch", arguments: {} }] },
			text("done"),
		];
		const asked: string[] = [];
		const approve: ApprovalHandler = (request) => {
			asked.push(request.toolName);
			return "deny";
		};
		for (const mode of ["ask", "read-only"] as const) {
			const tree = makeAgentDir({ providers: PROVIDERS, settings: { permissions: { mode } } });
			trees.push(tree);
			const file = join(tree.work, "tools.mjs");
			writeFileSync(file, extension);
			const { session } = createAgentSession({
				cwd: tree.work,
				agentDir: tree.agentDir,
				env: { PATH: process.env.PATH, HOME: tree.home },
				noSession: true,
				persistDefaults: false,
				streamFunction: scriptedStream(...calls()),
				extensions: { paths: [file], discover: false, mode: "rpc" },
				approve,
			});
			sessions.push(session);
			await session.prompt("go");
			expect(resultTexts(session)).toEqual([
				"lookup ran",
				mode === "ask" ? "Denied by the user" : "Denied by approval mode read-only",
			]);
		}
		expect(asked).toEqual(["launch"]);
	});

	it("setApprovalMode switches the mode, but not below the project's", () => {
		const { session } = start([], { approvalMode: "auto" }, { permissions: { mode: "ask" } });
		expect(session.approvalMode).toBe("ask");
		expect(() => session.setApprovalMode("auto")).toThrow(
			/^Approval mode "auto" is looser than "ask", which .*settings\.json requires$/,
		);
		session.setApprovalMode("read-only");
		expect(session.getState().approvalMode).toBe("read-only");
	});

	it("refuses to build a session whose permissions cannot be read", () => {
		const tree = makeAgentDir({ providers: PROVIDERS, settings: { permissions: { allow: "bash" } } });
		trees.push(tree);
		expect(() => createAgentSession({ cwd: tree.work, agentDir: tree.agentDir, noSession: true })).toThrow(
			`Invalid permissions settings:\n${join(tree.agentDir, "settings.json")}: permissions.allow: expected an array of rules`,
		);
	});
});
