// Starts and stops the shared loopback model server (shared/conformance/mock_llm.py) that every
// agent in a bench run talks to.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

const benchDir = dirname(fileURLToPath(import.meta.url));
export const mockScript = resolve(benchDir, "../../shared/conformance/mock_llm.py");

/** Starts mock_llm.py on a free loopback port; resolves once it prints `MOCK_LISTENING <port>`. */
export async function startMock() {
	if (!existsSync(mockScript)) throw new Error(`mock server not found at ${mockScript}`);
	const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("MOCK_")));
	const child = spawn("python3", [mockScript, "--port", "0"], { env, stdio: ["ignore", "pipe", "pipe"] });
	let stderr = "";
	child.stderr.setEncoding("utf8");
	child.stderr.on("data", (text) => {
		stderr = (stderr + text).slice(-4000);
	});
	const port = await new Promise((resolvePort, reject) => {
		let output = "";
		const timer = setTimeout(() => fail(new Error("mock did not start within 15 s")), 15_000);
		function fail(error) {
			clearTimeout(timer);
			child.kill("SIGKILL");
			reject(error);
		}
		const onExit = (code) => fail(new Error(`mock exited with ${code} before listening: ${stderr}`));
		child.stdout.setEncoding("utf8");
		child.stdout.on("data", (text) => {
			output += text;
			const match = /MOCK_LISTENING (\d+)/.exec(output);
			if (!match) return;
			clearTimeout(timer);
			child.off("exit", onExit);
			resolvePort(Number(match[1]));
		});
		child.on("error", (error) => fail(new Error(`cannot start python3: ${error.message}`, { cause: error })));
		child.on("exit", onExit);
	});
	const baseUrl = `http://127.0.0.1:${port}`;
	return {
		baseUrl,
		async stop() {
			if (child.exitCode !== null || child.signalCode !== null) return;
			const exited = new Promise((resolveExit) => child.once("exit", resolveExit));
			child.kill("SIGTERM");
			await exited;
		},
	};
}

/** Asks the mock for one streamed `tokens`-token Anthropic reply; resolves with its body stream. */
async function requestReply(baseUrl, tokens) {
	const response = await fetch(`${baseUrl}/v1/messages`, {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify({
			model: "mock-model",
			max_tokens: 8192,
			stream: true,
			messages: [{ role: "user", content: `baseline [[tokens=${tokens}]]` }],
		}),
	});
	if (!response.ok || !response.body) throw new Error(`mock answered ${response.status}`);
	return response.body;
}

/**
 * How long the mock alone takes for one `tokens`-token Anthropic reply, from sending the request
 * to the end of the stream, as a bare fetch client sees it: the floor under any agent's prompt.
 */
export async function mockRoundTripMs(baseUrl, tokens) {
	const startedAt = performance.now();
	const body = await requestReply(baseUrl, tokens);
	for await (const _chunk of body);
	return performance.now() - startedAt;
}

/**
 * How fast the mock alone streams one `tokens`-token Anthropic reply: text deltas per ms between
 * the first and the last delta, as read by a bare fetch client. An agent cannot relay deltas faster.
 */
export async function mockDeltaRate(baseUrl, tokens) {
	const body = await requestReply(baseUrl, tokens);
	const decoder = new TextDecoder();
	let count = 0;
	let first;
	let last;
	for await (const chunk of body) {
		const now = performance.now();
		const found = decoder.decode(chunk, { stream: true }).split('"text_delta"').length - 1;
		if (found === 0) continue;
		count += found;
		first ??= now;
		last = now;
	}
	if (first === undefined || last === undefined || last <= first) throw new Error(`mock streamed ${count} deltas`);
	return count / (last - first);
}
