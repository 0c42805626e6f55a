import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import type { AgentToolResult, ToolCallContext } from "../../src/agent/types.js";
import type { ExtensionAPI, ExtensionContext } from "../../src/extensions/index.js";
import type { AssistantMessage } from "../../src/llm/types.js";
import { MODEL } from "../agent/helpers.js";
import { runnerHarness } from "./helpers.js";

const assistant = {} as AssistantMessage;

function callContext(name: string, args: Record<string, unknown>): ToolCallContext {
	return { assistantMessage: assistant, toolCall: { type: "toolCall", id: `id-${name}`, name, arguments: args }, args };
}

function resultContext(name: string, args: Record<string, unknown>, result: AgentToolResult, isError = false) {
	return { ...callContext(name, args), result, isError };
}

const signal = new AbortController().signal;

describe("tool_call", () => {
	it("passes toolName, toolCallId and the mutable input; the first block wins", async () => {
		const { runner, errors } = runnerHarness();
		const seen: unknown[] = [];
		await runner.addExtension("/ext/a.ts", (atomic) => {
			atomic.on("tool_call", (event) => {
				seen.push({ ...event });
				event.input.command = "ls -la";
			});
		});
		await runner.addExtension("/ext/b.ts", (atomic) => {
			atomic.on("tool_call", (event) =>
				event.input.command === "ls -la" ? { block: true, reason: "no ls" } : undefined,
			);
			atomic.on("tool_call", () => {
				throw new Error("never reached");
			});
		});
		const context = callContext("bash", { command: "ls" });

		const verdict = await runner.beforeToolCall(context, signal);

		expect(verdict).toEqual({ block: true, reason: "no ls" });
		expect(seen).toEqual([
			{ type: "tool_call", toolName: "bash", toolCallId: "id-bash", input: { command: "ls -la" } },
		]);
		expect(context.args).toEqual({ command: "ls -la" });
		expect(errors).toEqual([]);
	});

	it("lets the call through when no handler blocks, and blocks (fail closed) when one throws", async () => {
		const { runner, errors } = runnerHarness();
		let fail = false;
		await runner.addExtension("/ext/guard.ts", (atomic) => {
			atomic.on("tool_call", () => {
				if (fail) throw new Error("guard crashed");
				return { block: false };
			});
		});

		expect(await runner.beforeToolCall(callContext("read", { path: "a" }), signal)).toBeUndefined();
		fail = true;
		expect(await runner.beforeToolCall(callContext("read", { path: "a" }), signal)).toEqual({
			block: true,
			reason: "Extension failed, blocking execution: guard crashed",
		});
		expect(errors).toEqual([{ extensionPath: "/ext/guard.ts", event: "tool_call", error: "guard crashed" }]);
	});

	it("gives handlers of tool hooks the run's signal in ctx", async () => {
		const { runner } = runnerHarness();
		const signals: (AbortSignal | undefined)[] = [];
		await runner.addExtension("/ext/a.ts", (atomic) => {
			atomic.on("tool_call", (_event, ctx) => {
				signals.push(ctx.signal);
			});
			atomic.on("agent_start", (_event, ctx) => {
				signals.push(ctx.signal);
			});
		});
		await runner.beforeToolCall(callContext("read", {}), signal);
		await runner.emit({ type: "agent_start" });
		expect(signals).toEqual([signal, undefined]);
	});
});

describe("tool_result", () => {
	it("chains partial patches; later handlers see earlier changes; omitted fields keep their value", async () => {
		const { runner, errors } = runnerHarness();
		const seen: unknown[] = [];
		await runner.addExtension("/ext/a.ts", (atomic) => {
			atomic.on("tool_result", (event) => {
				seen.push({ ...event });
				return { content: [{ type: "text", text: "redacted" }] };
			});
		});
		await runner.addExtension("/ext/b.ts", (atomic) => {
			atomic.on("tool_result", (event) => {
				seen.push(event.content);
				return { isError: true };
			});
			atomic.on("tool_result", () => {
				throw new Error("bad patcher");
			});
		});
		const original: AgentToolResult = { content: [{ type: "text", text: "secret" }], details: { n: 1 } };

		const override = await runner.afterToolCall(resultContext("read", { path: "x" }, original), signal);

		expect(override).toEqual({ content: [{ type: "text", text: "redacted" }], details: { n: 1 }, isError: true });
		expect(seen).toEqual([
			{
				type: "tool_result",
				toolName: "read",
				toolCallId: "id-read",
				input: { path: "x" },
				content: [{ type: "text", text: "secret" }],
				details: { n: 1 },
				isError: false,
			},
			[{ type: "text", text: "redacted" }],
		]);
		expect(errors).toEqual([{ extensionPath: "/ext/b.ts", event: "tool_result", error: "bad patcher" }]);
	});

	it("returns undefined when no handler changes anything, and reports malformed patches", async () => {
		const { runner, errors } = runnerHarness();
		await runner.addExtension("/ext/a.ts", (atomic) => {
			atomic.on("tool_result", () => undefined);
			atomic.on("tool_result", () => ({ content: "not an array" }) as never);
		});
		const result: AgentToolResult = { content: [{ type: "text", text: "ok" }] };
		expect(await runner.afterToolCall(resultContext("ls", {}, result), signal)).toBeUndefined();
		expect(errors).toEqual([
			{
				extensionPath: "/ext/a.ts",
				event: "tool_result",
				error: "tool_result: `content` must be an array of content blocks",
			},
		]);
	});
});

describe("input", () => {
	it("passes the input through unchanged without handlers or decisions", async () => {
		const { runner } = runnerHarness();
		expect(await runner.onInput({ text: "hello" })).toEqual({ handled: false, text: "hello" });
		await runner.addExtension("/ext/a.ts", (atomic) => {
			atomic.on("input", () => ({ action: "continue" }));
			atomic.on("input", () => undefined);
		});
		const images = [{ type: "image" as const, data: "AAAA", mimeType: "image/png" }];
		expect(await runner.onInput({ text: "hi", images })).toEqual({ handled: false, text: "hi", images });
	});

	it("chains transforms, reports streamingBehavior and source, and stops at handled", async () => {
		const { runner, errors } = runnerHarness();
		const events: unknown[] = [];
		await runner.addExtension("/ext/a.ts", (atomic) => {
			atomic.on("input", (event) => {
				events.push(event);
				return { action: "transform", text: `${event.text}!` };
			});
			atomic.on("input", (event) => {
				events.push(event.text);
				return event.text === "ping!" ? { action: "handled" } : { action: "transform", text: event.text.toUpperCase() };
			});
			atomic.on("input", (event) => {
				events.push(`third saw ${event.text}`);
			});
		});

		expect(await runner.onInput({ text: "ping", streamingBehavior: "steer" })).toEqual({ handled: true });
		expect(events).toEqual([
			{ type: "input", text: "ping", images: undefined, source: "rpc", streamingBehavior: "steer" },
			"ping!",
		]);
		events.length = 0;
		expect(await runner.onInput({ text: "go", source: "extension" })).toEqual({ handled: false, text: "GO!" });
		expect(events).toEqual([
			{ type: "input", text: "go", images: undefined, source: "extension" },
			"go!",
			"third saw GO!",
		]);
		expect(errors).toEqual([]);
	});

	it("reports throwing handlers and unknown results, then goes on", async () => {
		const { runner, errors } = runnerHarness();
		await runner.addExtension("/ext/a.ts", (atomic) => {
			atomic.on("input", () => {
				throw new Error("input broke");
			});
			atomic.on("input", () => ({ action: "explode" }) as never);
			atomic.on("input", (event) => ({ action: "transform", text: `${event.text}?` }));
		});
		expect(await runner.onInput({ text: "why" })).toEqual({ handled: false, text: "why?" });
		expect(errors).toEqual([
			{ extensionPath: "/ext/a.ts", event: "input", error: "input broke" },
			{ extensionPath: "/ext/a.ts", event: "input", error: 'input: unknown action "explode"' },
		]);
	});
});

describe("session_before_switch and session_before_fork", () => {
	it("cancels on the first {cancel: true}; errors count as no cancel", async () => {
		const { runner, errors } = runnerHarness();
		const events: unknown[] = [];
		await runner.addExtension("/ext/a.ts", (atomic) => {
			atomic.on("session_before_switch", (event) => {
				events.push(event);
				throw new Error("switch hook broke");
			});
			atomic.on("session_before_switch", (event) => ({ cancel: event.reason === "import" }));
			atomic.on("session_before_fork", (event) => {
				events.push(event);
				return { cancel: event.entryId === "e1" };
			});
		});

		expect(await runner.beforeSessionSwitch("new")).toEqual({ cancel: false });
		expect(await runner.beforeSessionSwitch("import", "/s/x.jsonl")).toEqual({ cancel: true });
		expect(await runner.beforeFork("e1")).toEqual({ cancel: true });
		expect(await runner.beforeFork(undefined, "at")).toEqual({ cancel: false });
		expect(events).toEqual([
			{ type: "session_before_switch", reason: "new" },
			{ type: "session_before_switch", reason: "import", targetSessionFile: "/s/x.jsonl" },
			{ type: "session_before_fork", entryId: "e1", position: "before" },
			{ type: "session_before_fork", position: "at" },
		]);
		expect(errors.map((error) => error.event)).toEqual(["session_before_switch", "session_before_switch"]);
	});
});

describe("user_bash", () => {
	it("lets the command run when no handler returns a result", async () => {
		const { runner } = runnerHarness();
		const events: unknown[] = [];
		await runner.addExtension("/ext/a.ts", (atomic) => {
			atomic.on("user_bash", (event) => {
				events.push(event);
			});
		});
		expect(await runner.userBash("ls", { excludeFromContext: true })).toBeUndefined();
		expect(events).toEqual([{ type: "user_bash", command: "ls", excludeFromContext: true, cwd: "/work/project" }]);
	});

	it("accepts pi's {result} and the bare result; the first one wins; operations are reported", async () => {
		const { runner, errors } = runnerHarness();
		await runner.addExtension("/ext/a.ts", (atomic) => {
			atomic.on("user_bash", () => ({ operations: {} }) as never);
			atomic.on("user_bash", (event) =>
				event.command === "remote" ? { result: { output: "from afar", exitCode: 0 } } : undefined,
			);
			atomic.on("user_bash", () => ({ output: "stubbed", exitCode: 3, truncated: true }));
		});
		expect(await runner.userBash("remote")).toEqual({
			output: "from afar",
			exitCode: 0,
			cancelled: false,
			truncated: false,
		});
		expect(await runner.userBash("other")).toEqual({
			output: "stubbed",
			exitCode: 3,
			cancelled: false,
			truncated: true,
		});
		expect(errors.map((error) => error.error)).toEqual([
			"user_bash: `operations` are not supported by Atomic; return `{result}` instead",
			"user_bash: `operations` are not supported by Atomic; return `{result}` instead",
		]);
	});
});

describe("observation events", () => {
	it("delivers agent events in order with turn indexes, awaiting each handler", async () => {
		const { runner, errors } = runnerHarness();
		const log: string[] = [];
		await runner.addExtension("/ext/a.ts", (atomic) => {
			atomic.on("agent_start", async () => {
				await new Promise((resolve) => setImmediate(resolve));
				log.push("a:agent_start");
			});
			atomic.on("turn_start", (event) => {
				log.push(`a:turn_start ${event.turnIndex} ${typeof event.timestamp}`);
			});
			atomic.on("turn_end", (event) => {
				log.push(`a:turn_end ${event.turnIndex}`);
			});
			atomic.on("session_start", (event) => {
				log.push(`a:session_start ${event.reason}`);
			});
		});
		await runner.addExtension("/ext/b.ts", (atomic) => {
			atomic.on("agent_start", () => {
				log.push("b:agent_start");
				throw new Error("observer broke");
			});
			atomic.on("session_shutdown", (event) => {
				log.push(`b:session_shutdown ${event.reason}`);
			});
		});
		const turnEnd = { type: "turn_end" as const, message: assistant, toolResults: [] };

		await runner.emit({ type: "session_start", reason: "startup" });
		await runner.emit({ type: "agent_start" });
		await runner.emit({ type: "turn_start" });
		await runner.emit(turnEnd);
		await runner.emit({ type: "turn_start" });
		await runner.emit(turnEnd);
		await runner.emit({ type: "agent_start" });
		await runner.emit({ type: "turn_start" });
		await runner.shutdown();

		expect(log).toEqual([
			"a:session_start startup",
			"a:agent_start",
			"b:agent_start",
			"a:turn_start 0 number",
			"a:turn_end 0",
			"a:turn_start 1 number",
			"a:turn_end 1",
			"a:agent_start",
			"b:agent_start",
			"a:turn_start 0 number",
			"b:session_shutdown quit",
		]);
		expect(errors).toEqual([
			{ extensionPath: "/ext/b.ts", event: "agent_start", error: "observer broke" },
			{ extensionPath: "/ext/b.ts", event: "agent_start", error: "observer broke" },
		]);
		expect(runner.hasHandlers("turn_start")).toBe(true);
		expect(runner.hasHandlers("message_update")).toBe(false);
	});
});

describe("commands", () => {
	it("runs a command with its args and ctx; failures are reported as command:<name>", async () => {
		const { runner, host, errors } = runnerHarness();
		const calls: [string, ExtensionContext][] = [];
		await runner.addExtension("/ext/a.ts", (atomic: ExtensionAPI) => {
			atomic.registerCommand("hello", { handler: (args, ctx) => void calls.push([args, ctx]) });
			atomic.registerCommand("boom", {
				description: "fails",
				handler: async () => {
					throw new Error("command failed");
				},
			});
		});

		expect(await runner.runCommandText("/hello  big world ")).toBe(true);
		expect(await runner.runCommand("boom", "")).toBe(true);
		expect(await runner.runCommand("nope", "")).toBe(false);
		expect(await runner.runCommandText("plain text")).toBe(false);

		expect(calls.map(([args]) => args)).toEqual(["big world"]);
		expect(calls[0]?.[1].cwd).toBe(host.cwd);
		expect(errors).toEqual([{ extensionPath: "command:boom", event: "command", error: "command failed" }]);
		const sourceInfo = { path: "/ext/a.ts", source: "cli", scope: "temporary", origin: "top-level" };
		expect(runner.commands()).toEqual([
			{ name: "hello", path: "/ext/a.ts", sourceInfo },
			{ name: "boom", description: "fails", path: "/ext/a.ts", sourceInfo },
		]);
	});

	it("rejects invalid registrations by failing the extension's load", async () => {
		const { runner, errors } = runnerHarness();
		expect(
			await runner.addExtension("/ext/a.ts", (atomic) =>
				atomic.registerCommand("two words", { handler: () => undefined }),
			),
		).toBe(false);
		expect(await runner.addExtension("/ext/b.ts", (atomic) => atomic.registerTool({} as never))).toBe(false);
		expect(errors).toEqual([
			{ extensionPath: "/ext/a.ts", event: "load", error: 'registerCommand: invalid command name "two words"' },
			{ extensionPath: "/ext/b.ts", event: "load", error: "registerTool: `name` must be a non-empty string" },
		]);
		expect(runner.extensionPaths).toEqual([]);
	});
});

describe("registered tools", () => {
	const parameters = Type.Object({ text: Type.String() });

	it("become AgentTools whose execute gets params, signal, onUpdate and ctx", async () => {
		const { runner, host } = runnerHarness();
		host.model = MODEL;
		await runner.addExtension("/ext/a.ts", (atomic) => {
			atomic.registerTool({
				name: "shout",
				label: "Shout",
				description: "upper-cases text",
				parameters,
				async execute(toolCallId, params, toolSignal, onUpdate, ctx) {
					onUpdate({ content: [{ type: "text", text: "working" }] });
					const text = `${toolCallId}:${params.text.toUpperCase()}:${toolSignal === ctx.signal}:${ctx.model?.id}`;
					return { content: [{ type: "text", text }], details: { length: params.text.length } };
				},
			});
		});
		const [tool] = runner.tools();
		const updates: unknown[] = [];

		const result = await tool?.execute("c1", { text: "hi" }, signal, (partial) => updates.push(partial));

		expect(tool).toMatchObject({ name: "shout", label: "Shout", description: "upper-cases text", parameters });
		expect(result).toEqual({ content: [{ type: "text", text: "c1:HI:true:scripted" }], details: { length: 2 } });
		expect(updates).toEqual([{ content: [{ type: "text", text: "working" }] }]);
		expect(runner.tools()[0]).toBe(tool);
	});

	it("turns malformed results into a throw, and keeps the first owner of a tool name", async () => {
		const { runner, errors } = runnerHarness();
		const make = (text: string) => ({
			name: "dup",
			description: text,
			parameters,
			execute: async () => ({ text }) as never,
		});
		await runner.addExtension("/ext/a.ts", (atomic) => atomic.registerTool(make("first")));
		await runner.addExtension("/ext/b.ts", (atomic) => atomic.registerTool(make("second")));

		expect(runner.tools().map((tool) => tool.description)).toEqual(["first"]);
		expect(errors).toEqual([
			{ extensionPath: "/ext/b.ts", event: "registerTool", error: 'Tool "dup" is already registered by /ext/a.ts' },
		]);
		await expect(runner.tools()[0]?.execute("c", { text: "" }, signal, () => undefined)).rejects.toThrow(
			'Tool "dup" returned an invalid result: expected an object with a `content` array',
		);
	});
});
