/**
 * The two example clients of the RPC documentation, copied verbatim except for the command line
 * that starts the agent, run against the built CLI and a scripted model.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, childEnv, makeAgentDir } from "../support/rpc-process.js";
import { useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

const PYTHON_CLIENT = String.raw`import subprocess
import json

proc = subprocess.Popen(
    ["atomic", "--mode", "rpc", "--no-session"],
    stdin=subprocess.PIPE,
    stdout=subprocess.PIPE,
    text=True
)

def send(cmd):
    proc.stdin.write(json.dumps(cmd) + "\n")
    proc.stdin.flush()

def read_events():
    for line in proc.stdout:
        yield json.loads(line)

# Send prompt
send({"type": "prompt", "message": "Hello!"})

# Process events
for event in read_events():
    if event.get("type") == "message_update":
        delta = event.get("assistantMessageEvent", {})
        if delta.get("type") == "text_delta":
            print(delta["delta"], end="", flush=True)
    
    if event.get("type") == "agent_end":
        print()
        break
`;

const NODE_CLIENT = String.raw`const { spawn } = require("child_process");
const { StringDecoder } = require("string_decoder");

const agent = spawn("atomic", ["--mode", "rpc", "--no-session"]);

function attachJsonlReader(stream, onLine) {
    const decoder = new StringDecoder("utf8");
    let buffer = "";

    stream.on("data", (chunk) => {
        buffer += typeof chunk === "string" ? chunk : decoder.write(chunk);

        while (true) {
            const newlineIndex = buffer.indexOf("\n");
            if (newlineIndex === -1) break;

            let line = buffer.slice(0, newlineIndex);
            buffer = buffer.slice(newlineIndex + 1);
            if (line.endsWith("\r")) line = line.slice(0, -1);
            onLine(line);
        }
    });

    stream.on("end", () => {
        buffer += decoder.end();
        if (buffer.length > 0) {
            onLine(buffer.endsWith("\r") ? buffer.slice(0, -1) : buffer);
        }
    });
}

attachJsonlReader(agent.stdout, (line) => {
    const event = JSON.parse(line);

    if (event.type === "message_update") {
        const { assistantMessageEvent } = event;
        if (assistantMessageEvent.type === "text_delta") {
            process.stdout.write(assistantMessageEvent.delta);
        }
    }
});

// Send prompt
agent.stdin.write(JSON.stringify({ type: "prompt", message: "Hello" }) + "\n");

// Abort on CTRL+C
process.on("SIGINT", () => {
    agent.stdin.write(JSON.stringify({ type: "abort" }) + "\n");
});
`;

const REPLY = "Hello from the mock model \u2028 with a line separator.";

const clients: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
	for (const client of clients.splice(0))
		if (client.exitCode === null && client.signalCode === null) client.kill("SIGKILL");
});

/** An agent dir whose settings pick the mock model by default, and the reply the model will stream. */
function prepare() {
	const dirs = makeAgentDir({
		server: harness.server,
		settings: { defaultProvider: "mock", defaultModel: "mock-model" },
	});
	harness.server.enqueue({ blocks: [{ type: "text", text: REPLY, chunks: 4 }] });
	return dirs;
}

function run(command: string, args: string[], dirs: ReturnType<typeof makeAgentDir>): ChildProcessWithoutNullStreams {
	const client = spawn(command, args, { cwd: dirs.work, env: childEnv(dirs.agentDir, dirs.home) });
	clients.push(client);
	return client;
}

/** Resolves with the client's stdout once it satisfies `done` (or rejects on timeout / exit). */
function stdoutUntil(client: ChildProcessWithoutNullStreams, done: (text: string) => boolean): Promise<string> {
	return new Promise((resolve, reject) => {
		let text = "";
		let stderr = "";
		client.stderr.on("data", (chunk: Buffer) => {
			stderr += chunk.toString("utf8");
		});
		const timer = setTimeout(() => reject(new Error(`client timed out; stdout ${text}; stderr ${stderr}`)), 15_000);
		client.stdout.on("data", (chunk: Buffer) => {
			text += chunk.toString("utf8");
			if (done(text)) {
				clearTimeout(timer);
				resolve(text);
			}
		});
		client.on("exit", (code) => {
			clearTimeout(timer);
			if (done(text)) resolve(text);
			else reject(new Error(`client exited with ${code}; stdout ${text}; stderr ${stderr}`));
		});
	});
}

describe("the documentation's example clients", () => {
	it("the Python client prints the streamed reply", async () => {
		const dirs = prepare();
		try {
			const script = join(dirs.root, "client.py");
			const command = JSON.stringify([process.execPath, CLI, "--mode", "rpc", "--no-session"]);
			writeFileSync(script, PYTHON_CLIENT.replace('["atomic", "--mode", "rpc", "--no-session"]', command));
			const client = run("python3", [script], dirs);
			const exited = new Promise<number | null>((resolve) => client.on("exit", (code) => resolve(code)));
			const output = await stdoutUntil(client, (text) => text.endsWith("\n"));
			expect(await exited).toBe(0);
			expect(output).toBe(`${REPLY}\n`);
			expect(harness.server.requests).toHaveLength(1);
		} finally {
			dirs.cleanup();
		}
	});

	it("the Node.js client prints the streamed reply", async () => {
		const dirs = prepare();
		try {
			const script = join(dirs.root, "client.cjs");
			const spawnCall = `spawn(${JSON.stringify(process.execPath)}, [${JSON.stringify(CLI)}, "--mode", "rpc", "--no-session"])`;
			writeFileSync(script, NODE_CLIENT.replace('spawn("atomic", ["--mode", "rpc", "--no-session"])', spawnCall));
			const client = run(process.execPath, [script], dirs);
			const output = await stdoutUntil(client, (text) => text === REPLY);
			expect(output).toBe(REPLY);
			client.kill("SIGTERM");
			await new Promise((resolve) => client.on("exit", resolve));
		} finally {
			dirs.cleanup();
		}
	});
});
