import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type RpcClient, RpcCommandError } from "../../src/index.js";
import { textReply } from "../support/llm-server.js";
import { nextEvent, startClient, useClientHarness } from "./helpers.js";

const harness = useClientHarness();

const THIRTY_LINES = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`).join("\n");

/** Two exchanges the planner can compact: a 30-line prompt answered "ok", then "second" answered "done". */
async function twoExchanges(client: RpcClient): Promise<void> {
	harness.server.enqueue(textReply("ok"), textReply("done", { usage: { input: 1000, output: 10 } }));
	await client.promptAndWait(THIRTY_LINES);
	await client.promptAndWait("second");
}

describe("compaction", () => {
	it("compact returns the committed result; a session too small is refused", async () => {
		const { client } = await startClient(harness.server);
		await expect(client.compact()).rejects.toSatisfy(
			(error: unknown) =>
				error instanceof RpcCommandError &&
				error.command === "compact" &&
				error.errorText === "Nothing to compact (session too small)",
		);
		await twoExchanges(client);
		harness.server.enqueue(textReply("2,10\n20,25"));
		const end = nextEvent(client, "compaction_end");
		const result = await client.compact({ query: "second" });
		expect(result).toMatchObject({
			rung: "planned",
			parameters: { compression_ratio: 0.5, preserve_recent: 2, query: "second" },
			stats: { linesBefore: 32, linesDeleted: 15, linesKept: 17, rangeCount: 2 },
		});
		expect(typeof result.firstKeptEntryId).toBe("string");
		const { summary, ...committed } = result;
		expect(summary).toBe(result.compactedText);
		expect(await end).toMatchObject({ type: "compaction_end", reason: "manual", aborted: false, result: committed });
	});

	it("abortCompaction cancels a running compaction", async () => {
		const { client } = await startClient(harness.server);
		await twoExchanges(client);
		harness.server.enqueue({ ...textReply("2,10"), fault: "stall", faultAfterFrames: 2 });
		const started = nextEvent(client, "compaction_start");
		const compaction = client.compact();
		await started;
		await expect(client.abortCompaction()).resolves.toBeUndefined();
		await expect(compaction).rejects.toThrow("compact failed: Compaction cancelled");
		expect((await client.getState()).isCompacting).toBe(false);
	});
});

describe("bash", () => {
	it("bash forwards the deltas of its own request only, per channel, and resolves with the result", async () => {
		const { client } = await startClient(harness.server);
		const own: Record<string, string> = { stdout: "", stderr: "" };
		const other: string[] = [];
		const [result, otherResult] = await Promise.all([
			client.bash("printf 'out\\n'; printf 'err\\n' >&2; exit 3", {
				onData: (delta, channel) => {
					own[channel] += delta;
				},
			}),
			client.bash("printf 'other\\n'", { onData: (delta) => other.push(delta) }),
		]);
		expect(own).toEqual({ stdout: "out\n", stderr: "err\n" });
		expect(other.join("")).toBe("other\n");
		expect(result).toMatchObject({ exitCode: 3, cancelled: false, truncated: false });
		expect(result.output).toContain("out\n");
		expect(result.output).toContain("err\n");
		expect(otherResult).toEqual({ output: "other\n", exitCode: 0, cancelled: false, truncated: false });
	});

	it("abortBash with the request id cancels that command", async () => {
		const { client, dirs } = await startClient(harness.server);
		const gate = join(dirs.root, "never-created");
		let requestId = "";
		let started: () => void = () => undefined;
		const running = new Promise<void>((resolve) => {
			started = resolve;
		});
		const command = client.bash(`echo started; while [ ! -e '${gate}' ]; do sleep 0.02; done`, {
			onRequestId: (id) => {
				requestId = id;
			},
			onData: (delta) => {
				if (delta.includes("started")) started();
			},
		});
		await running;
		await expect(client.abortBash(requestId)).resolves.toBeUndefined();
		expect(await command).toMatchObject({ cancelled: true, output: "started\n" });
	});

	it("userBash runs the command when no extension answers it", async () => {
		const { client } = await startClient(harness.server);
		const deltas: string[] = [];
		const result = await client.userBash("echo via user bash", { onData: (delta) => deltas.push(delta) });
		expect(result).toEqual({ output: "via user bash\n", exitCode: 0, cancelled: false, truncated: false });
		expect(deltas.join("")).toBe("via user bash\n");
	});

	it("excludeFromContext keeps the result out of the next request to the model", async () => {
		const { client } = await startClient(harness.server);
		await client.bash("echo hidden-output", { excludeFromContext: true });
		await client.bash("echo shown-output");
		await client.promptAndWait("go");
		const sent = JSON.stringify(harness.server.requests[0]?.body);
		expect(sent).toContain("shown-output");
		expect(sent).not.toContain("hidden-output");
	});
});
