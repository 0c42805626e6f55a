/**
 * In-process runtime tests: an AgentSession built by createAgentSession in a temp tree (agent
 * dir with models.json and settings.json, a work dir, a session dir), driven by the shared
 * scripted model, with every event it reports recorded.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onTestFinished } from "vitest";
import type { AgentSession } from "../../src/runtime/facade/agent-session.js";
import { type CreateAgentSessionOptions, createAgentSession } from "../../src/runtime/facade/create-agent-session.js";
import type { AgentSessionEvent } from "../../src/runtime/facade/events.js";
import {
	type ScriptedCall,
	type ScriptedStep,
	type ScriptedStream,
	scriptedStream,
} from "../support/scripted-stream.js";

export interface RuntimeTree {
	root: string;
	agentDir: string;
	cwd: string;
	sessionDir: string;
}

/** Two providers with two models each; `fake` is the default unless settings say otherwise. */
export const PROVIDERS = {
	fake: {
		baseUrl: "http://127.0.0.1:9",
		api: "anthropic-messages",
		apiKey: "key",
		models: [
			{ id: "small", contextWindow: 100_000, maxTokens: 1000 },
			{ id: "thinker", reasoning: true, contextWindow: 100_000, maxTokens: 1000 },
		],
	},
	other: {
		baseUrl: "http://127.0.0.1:9/v1",
		api: "openai-completions",
		apiKey: "key",
		models: [{ id: "wide", contextWindow: 200_000, maxTokens: 1000 }],
	},
};

const trees: RuntimeTree[] = [];
const sessions: AgentSession[] = [];

let cleanupRegistered = false;

/**
 * Disposes the test's sessions, then removes its trees, when the test ends: registered per test,
 * so it holds whether or not the test files share one module graph.
 */
function cleanUpAfterTest(): void {
	if (cleanupRegistered) return;
	cleanupRegistered = true;
	onTestFinished(async () => {
		cleanupRegistered = false;
		for (const session of sessions.splice(0)) await session.dispose();
		for (const tree of trees.splice(0)) rmSync(tree.root, { recursive: true, force: true });
	});
}

export function runtimeTree(settings: Record<string, unknown> = {}, providers: object = PROVIDERS): RuntimeTree {
	const root = mkdtempSync(join(tmpdir(), "atomic-runtime-"));
	const tree = { root, agentDir: join(root, "agent"), cwd: join(root, "work"), sessionDir: join(root, "sessions") };
	for (const dir of [tree.agentDir, tree.cwd, tree.sessionDir]) mkdirSync(dir, { recursive: true });
	writeFileSync(join(tree.agentDir, "models.json"), JSON.stringify({ providers }));
	const withRetry = { retry: { enabled: true, maxRetries: 2, baseDelayMs: 1 }, ...settings };
	writeFileSync(join(tree.agentDir, "settings.json"), JSON.stringify(withRetry));
	trees.push(tree);
	cleanUpAfterTest();
	return tree;
}

export interface Started {
	session: AgentSession;
	stream: ScriptedStream;
	events: AgentSessionEvent[];
	tree: RuntimeTree;
	/** The events of one type, in order, since index `from`. */
	of<T extends AgentSessionEvent["type"]>(type: T, from?: number): Extract<AgentSessionEvent, { type: T }>[];
	/** Resolves with the first event (seen or future) matching; rejects after 10 s. */
	next(predicate: (event: AgentSessionEvent) => boolean, from?: number): Promise<AgentSessionEvent>;
}

/** Starts an AgentSession on a fresh tree (or the given one), with sessions stored in its session dir. */
export function startSession(
	options: {
		steps?: ScriptedStep[];
		tree?: RuntimeTree;
		settings?: Record<string, unknown>;
		create?: Partial<CreateAgentSessionOptions>;
	} = {},
): Started {
	const tree = options.tree ?? runtimeTree(options.settings);
	const stream = scriptedStream(...(options.steps ?? []));
	const { session } = createAgentSession({
		cwd: tree.cwd,
		agentDir: tree.agentDir,
		sessionDir: tree.sessionDir,
		env: { HOME: tree.root },
		persistDefaults: false,
		streamFunction: stream,
		mcp: false,
		...options.create,
	});
	sessions.push(session);
	cleanUpAfterTest();
	const events: AgentSessionEvent[] = [];
	const waiters = new Set<() => void>();
	session.subscribe((event) => {
		events.push(event);
		for (const waiter of [...waiters]) waiter();
	});
	const of = <T extends AgentSessionEvent["type"]>(type: T, from = 0) =>
		events.slice(from).filter((event): event is Extract<AgentSessionEvent, { type: T }> => event.type === type);
	const next = (predicate: (event: AgentSessionEvent) => boolean, from = 0) =>
		new Promise<AgentSessionEvent>((resolve, reject) => {
			const check = () => {
				const found = events.slice(from).find(predicate);
				if (!found) return;
				waiters.delete(check);
				clearTimeout(timer);
				resolve(found);
			};
			const timer = setTimeout(() => {
				waiters.delete(check);
				reject(new Error(`no matching event within 10 s; saw ${events.map((event) => event.type).join(", ")}`));
			}, 10_000);
			waiters.add(check);
			check();
		});
	return { session, stream, events, tree, of, next };
}

/** Resolves after pending microtasks and one macrotask: scheduled state announcements have gone out. */
export function settle(): Promise<void> {
	return new Promise((resolve) => setImmediate(resolve));
}

/** Each message a scripted call sent as `role: text` (text blocks joined; other blocks as `[type]`). */
export function sentLines(call: ScriptedCall | undefined): string[] {
	if (!call) throw new Error("the scripted model received no such call");
	return call.context.messages.map((message) => {
		const content = message.content;
		const text =
			typeof content === "string"
				? content
				: content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("");
		return `${message.role}: ${text}`;
	});
}
