import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { RequestError } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { textReply, toolReply } from "../support/llm-server.js";
import { useAcpHarness } from "./helpers.js";

const harness = useAcpHarness();

/** An extension that writes to stdout in every way a library might: at load and from its tool. */
const NOISY = `export default (pi) => {
	console.log("console.log at load");
	process.stdout.write("a raw stdout write\\n");
	pi.registerTool({
		name: "noisy",
		description: "writes to stdout",
		parameters: { type: "object", properties: {} },
		execute: async () => {
			console.info("console.info from a tool");
			process.stdout.write("{\\"jsonrpc\\":\\"2.0\\",\\"method\\":\\"forged\\"}\\n");
			return { content: [{ type: "text", text: "noisy done" }] };
		},
	});
};
`;

/** Resolves once the client's copy of the agent's stderr contains `text`. */
async function stderrShows(client: { stderr: string; child: { stderr: NodeJS.ReadableStream } }, text: string) {
	while (!client.stderr.includes(text)) {
		await new Promise((resolve) => client.child.stderr.once("data", resolve));
	}
}

describe("the ACP process", () => {
	it("tunes its heap as RPC mode does: the young generation is capped, and memory is given back once idle after a prompt", async () => {
		const { client, dirs } = await harness.start({ env: { ATOMIC_DEBUG_IDLE: "1" } });
		await stderrShows(client, "heap: tuning on");
		const sessionId = await client.newSession(dirs.work);
		harness.server.enqueue(textReply("hello"));
		await client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
		// After 5 s without input, whether there was enough to collect or not.
		await stderrShows(client, "idle: release-memory ");
		expect(client.stderr).toMatch(/idle: release-memory (collected|skipped)\n/);
		harness.server.enqueue(textReply("again"));
		const answer = await client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
		expect(answer.stopReason).toBe("end_turn");
	});

	it("loads what the first prompt needs once idle after its first session, unless settings say idlePreload: false", async () => {
		const { client, dirs } = await harness.start({ env: { ATOMIC_DEBUG_IDLE: "1" } });
		const sessionId = await client.newSession(dirs.work);
		await stderrShows(client, "preload: done");
		const steps = client.stderr.split("\n").filter((line) => line.startsWith("preload: "));
		expect(steps.map((line) => line.replace(/ \(.*\)$/, ""))).toEqual([
			"preload: provider:anthropic-messages loaded",
			"preload: http-client loaded",
			`preload: connect:${harness.server.origin} loaded`,
			"preload: argument-validator loaded",
			"preload: search:worker loaded",
			"preload: search:warm-up:1 loaded",
			"preload: search:warm-up:2 loaded",
			"preload: search:warm-up:3 loaded",
			"preload: search:warm-up:4 loaded",
			"preload: search:warm-up:5 loaded",
			"preload: search:warm-up:6 loaded",
			"preload: search:warm-up:7 loaded",
			"preload: search:warm-up:8 loaded",
			"preload: search:warm-up:9 loaded",
			"preload: search:warm-up:10 loaded",
			"preload: search:warm-up:11 loaded",
			"preload: search:warm-up:12 loaded",
			"preload: edit:diff loaded",
			"preload: done",
		]);
		harness.server.enqueue(textReply("after the preload"));
		const answer = await client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
		expect(answer.stopReason).toBe("end_turn");

		const off = await harness.start({ env: { ATOMIC_DEBUG_IDLE: "1" }, settings: { idlePreload: false } });
		const quiet = await off.client.newSession(off.dirs.work);
		await stderrShows(off.client, "preload: off");
		harness.server.enqueue(textReply("loaded on first use"));
		await off.client.agent.request("session/prompt", { sessionId: quiet, prompt: [{ type: "text", text: "hi" }] });
		expect(off.client.text(quiet, "agent_message_chunk")).toBe("loaded on first use");
		expect(off.client.stderr).not.toContain("preload: provider:");
	});

	it("keeps stdout for protocol messages: console and raw writes of extensions and tools go to stderr", async () => {
		harness.server.enqueue(toolReply("noisy", {}), textReply("finished"));
		const { client, dirs } = await harness.start({
			prepare: (tree) => writeFileSync(join(tree.work, "noisy.mjs"), NOISY),
			args: ["-e", "noisy.mjs"],
		});
		const sessionId = await client.newSession(dirs.work);
		const answer = await client.agent.request("session/prompt", {
			sessionId,
			prompt: [{ type: "text", text: "make noise" }],
		});
		expect(answer.stopReason).toBe("end_turn");
		expect(client.text(sessionId, "agent_message_chunk")).toBe("finished");
		expect(client.stdoutLines.length).toBeGreaterThan(3);
		for (const line of client.stdoutLines) {
			const message: unknown = JSON.parse(line);
			expect(message).toMatchObject({ jsonrpc: "2.0" });
			expect(line).not.toContain("forged");
		}
		for (const text of ["console.log at load", "a raw stdout write", "console.info from a tool", "forged"]) {
			expect(client.stderr).toContain(text);
		}
	});

	it("refuses a request before initialize with -32600 and keeps serving", async () => {
		const { client, dirs } = await harness.start({ initialize: false });
		const early = await client.agent.request("session/new", { cwd: dirs.work, mcpServers: [] }).then(
			() => undefined,
			(error: unknown) => error,
		);
		expect(early).toBeInstanceOf(RequestError);
		expect(early).toMatchObject({ code: -32600 });
		await client.initialize();
		expect(await client.newSession(dirs.work)).toEqual(expect.any(String));
	});

	it.each([
		["SIGTERM", 143],
		["SIGINT", 130],
		["SIGHUP", 129],
	] as const)("ends on %s with exit code %i, its sessions stopped", async (signal, code) => {
		const { client, dirs } = await harness.start();
		await client.newSession(dirs.work);
		client.child.kill(signal);
		expect(await client.exited).toEqual({ code, signal: null });
	});
});
