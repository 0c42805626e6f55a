import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ClientCapabilities, RequestError, type SessionUpdate } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { type RecordedRequest, type ScriptedReply, textReply } from "../support/llm-server.js";
import { testProviders } from "../support/rpc-process.js";
import { type StartAcpOptions, useAcpHarness } from "./helpers.js";

const harness = useAcpHarness();

/** Threshold: more than 5000 - 1000 = 4000 context tokens. */
const SMALL_WINDOW = 5000;
const OVER_THRESHOLD = { usage: { input: 4500, output: 100 } };
const OVERLOADED = '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';

/** Planner requests offer no tools and carry the numbered transcript. */
function isPlannerRequest(request: RecordedRequest): boolean {
	const body = request.body as { tools?: unknown[] };
	return (
		(body.tools === undefined || body.tools.length === 0) && JSON.stringify(body).includes("<numbered-transcript>")
	);
}

function lines(label: string): string {
	return Array.from({ length: 12 }, (_, index) => `${label} line ${index + 1}`).join("\n");
}

/** Conversation replies in order; the planner deletes lines 1-10. */
function script(conversation: ScriptedReply[]): void {
	harness.server.onRequest((request) =>
		isPlannerRequest(request) ? textReply("1,10\n") : (conversation.shift() ?? textReply("ok")),
	);
}

/** An agent whose models have a small context window and compaction reserve. */
function startSmall(capabilities: ClientCapabilities, options: StartAcpOptions = {}) {
	return harness.start({
		...options,
		capabilities,
		settings: { compaction: { reserveTokens: 1000 } },
		prepare: (dirs) => {
			const providers = testProviders(harness.server, SMALL_WINDOW);
			writeFileSync(join(dirs.agentDir, "models.json"), JSON.stringify({ providers }));
		},
	});
}

/** Three prompts; the third reply crosses the compaction threshold. Resolves with the session id. */
async function threeTurns(client: Awaited<ReturnType<typeof startSmall>>["client"], cwd: string): Promise<string> {
	script([textReply(lines("one")), textReply(lines("two")), textReply(lines("three"), OVER_THRESHOLD)]);
	const sessionId = await client.newSession(cwd);
	for (const text of ["first", "second", "third"]) {
		const response = await client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
		expect(response.stopReason).toBe("end_turn");
	}
	return sessionId;
}

function usageUpdates(updates: SessionUpdate[]) {
	return updates.flatMap((update) => (update.sessionUpdate === "usage_update" ? [update] : []));
}

function notices(updates: SessionUpdate[]) {
	return updates.flatMap((update) =>
		update.sessionUpdate === "notice"
			? [{ severity: update.severity, title: update.title, description: update.description }]
			: [],
	);
}

describe("compaction over ACP", () => {
	it("a client that offers compaction gets compaction_update in progress then completed, before the response", async () => {
		const { client, dirs } = await startSmall({ session: { compaction: {} } });
		const sessionId = await threeTurns(client, dirs.work);
		const updates = client.updates(sessionId);
		const compaction = updates.flatMap((update) => (update.sessionUpdate === "compaction_update" ? [update] : []));
		expect(compaction.map((update) => update.status)).toEqual(["in_progress", "completed"]);
		expect(compaction[0]?.compactionId).toBe(compaction[1]?.compactionId);
		const summary = compaction[1]?.summary?.[0];
		expect(summary?.type === "text" ? summary.text : "").toMatch(
			/^Compacted the conversation: about \d+ tokens before, \d+ after\.$/,
		);
		// The usage shown after the compaction is the compacted context's, not the one before.
		const last = usageUpdates(updates).at(-1);
		expect(updates.indexOf(last as SessionUpdate)).toBeGreaterThan(updates.indexOf(compaction[1] as SessionUpdate));
		expect(last?.used).toBeLessThan(4600);
		expect(last?.size).toBe(SMALL_WINDOW);
		expect(client.text(sessionId, "agent_message_chunk")).not.toContain("Compact");
	});

	it("a client with notices gets a notice when it starts and when it ends", async () => {
		const { client, dirs } = await startSmall({ session: { notices: {} } });
		const sessionId = await threeTurns(client, dirs.work);
		expect(notices(client.updates(sessionId))).toEqual([
			{ severity: "info", title: "Compacting the conversation (threshold)", description: undefined },
			{
				severity: "info",
				title: expect.stringMatching(/^Compacted the conversation: about \d+ tokens before, \d+ after\.$/),
				description: undefined,
			},
		]);
	});

	it("a client with neither sees the compaction as a note in the agent's messages", async () => {
		const { client, dirs } = await startSmall({});
		const sessionId = await threeTurns(client, dirs.work);
		expect(client.text(sessionId, "agent_message_chunk")).toMatch(
			/\n_Compacted the conversation: about \d+ tokens before, \d+ after\._\n$/,
		);
		// The next prompt sees the compacted conversation.
		harness.server.enqueue(textReply("after"));
		await client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "fourth" }] });
		const last = harness.server.requests.filter((request) => !isPlannerRequest(request)).at(-1);
		expect(JSON.stringify(last?.body)).toContain("(filtered 10 lines)");
	});
});

describe("retries over ACP", () => {
	it("each retry is a warning notice when the client shows notices", async () => {
		harness.server.enqueue({ status: 529 }, textReply("finally"));
		const { client, dirs } = await harness.start({ capabilities: { session: { notices: {} } } });
		const sessionId = await client.newSession(dirs.work);
		const response = await client.agent.request("session/prompt", {
			sessionId,
			prompt: [{ type: "text", text: "go" }],
		});
		expect(response.stopReason).toBe("end_turn");
		expect(notices(client.updates(sessionId))).toEqual([
			{ severity: "warning", title: "Retrying (attempt 1 of 3)", description: OVERLOADED },
		]);
		expect(client.text(sessionId, "agent_message_chunk")).toBe("finally");
	});

	it("giving up is an error notice", async () => {
		harness.server.enqueue({ status: 529 }, { status: 529 });
		const { client, dirs } = await harness.start({
			capabilities: { session: { notices: {} } },
			settings: { retry: { maxRetries: 1, baseDelayMs: 10 } },
		});
		const sessionId = await client.newSession(dirs.work);
		const outcome = await client.agent
			.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] })
			.then(
				() => "answered",
				(error: unknown) => (error instanceof RequestError ? error.code : String(error)),
			);
		expect(outcome).toBe(-32603);
		expect(notices(client.updates(sessionId))).toEqual([
			{ severity: "warning", title: "Retrying (attempt 1 of 1)", description: OVERLOADED },
			{ severity: "error", title: "Gave up retrying", description: OVERLOADED },
		]);
	});

	it("without notices a retry is a thought; giving up answers the prompt with the error", async () => {
		harness.server.enqueue({ status: 529 }, { status: 529 });
		const { client, dirs } = await harness.start({ settings: { retry: { maxRetries: 1, baseDelayMs: 10 } } });
		const sessionId = await client.newSession(dirs.work);
		const error = await client.agent
			.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] })
			.then(
				() => undefined,
				(reason: unknown) => reason,
			);
		expect(client.text(sessionId, "agent_thought_chunk")).toBe(`\n_Retrying (attempt 1 of 1): ${OVERLOADED}_\n`);
		expect(error).toBeInstanceOf(RequestError);
		expect(error instanceof RequestError ? error.message : "").toContain("Overloaded");
		expect(harness.server.requests).toHaveLength(2);
	});
});

describe("usage and cost over ACP", () => {
	it("each reply sends the context size, the window and the session's cost so far", async () => {
		const { client, dirs } = await harness.start({
			args: ["--model", "priced/priced-model"],
			prepare: (prepared) => {
				const providers = {
					...testProviders(harness.server),
					priced: {
						baseUrl: harness.server.baseUrl("anthropic-messages"),
						api: "anthropic-messages",
						apiKey: "test-key",
						models: [
							{
								id: "priced-model",
								name: "Priced",
								contextWindow: 100_000,
								maxTokens: 4096,
								cost: { input: 3, output: 15, cacheRead: 0, cacheWrite: 0 },
							},
						],
					},
				};
				writeFileSync(join(prepared.agentDir, "models.json"), JSON.stringify({ providers }));
			},
		});
		harness.server.enqueue(
			textReply("one", { usage: { input: 1000, output: 200 } }),
			textReply("two", { usage: { input: 3000, output: 400 } }),
		);
		const sessionId = await client.newSession(dirs.work);
		await client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "first" }] });
		expect(usageUpdates(client.updates(sessionId))).toEqual([
			{ sessionUpdate: "usage_update", used: 1200, size: 100_000, cost: { amount: 0.006, currency: "USD" } },
		]);
		await client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "second" }] });
		const updates = usageUpdates(client.updates(sessionId));
		expect(updates).toHaveLength(2);
		expect(updates[1]).toMatchObject({ used: 3400, size: 100_000, cost: { currency: "USD" } });
		// 0.006 + 3000 * 3 / 1e6 + 400 * 15 / 1e6
		expect(updates[1]?.cost?.amount).toBeCloseTo(0.021, 10);
	});
});
