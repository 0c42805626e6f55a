import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { type OutputStream, OutputWriter } from "../../src/rpc/output.js";

/** A stdout stand-in that records each chunk and can refuse more (backpressure). */
class FakeStream extends EventEmitter implements OutputStream {
	readonly chunks: string[] = [];
	full = false;

	write(chunk: string, callback?: (error?: Error | null) => void): boolean {
		this.chunks.push(chunk);
		queueMicrotask(() => callback?.(null));
		return !this.full;
	}
}

const nextTick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("OutputWriter", () => {
	it("batches the events of one tick into one write", async () => {
		const stream = new FakeStream();
		const writer = new OutputWriter(stream);
		writer.write({ type: "agent_start" });
		writer.write({ type: "turn_start" });
		expect(stream.chunks).toEqual([]);
		await nextTick();
		expect(stream.chunks).toEqual(['{"type":"agent_start"}\n{"type":"turn_start"}\n']);
	});

	it("writes a response at once, after the events queued before it and before those after it", async () => {
		const stream = new FakeStream();
		const writer = new OutputWriter(stream);
		writer.write({ type: "queue_update" });
		writer.write({ type: "response", command: "get_state", success: true });
		expect(stream.chunks).toEqual([
			'{"type":"queue_update"}\n{"type":"response","command":"get_state","success":true}\n',
		]);
		writer.write({ type: "agent_start" });
		writer.write({ type: "turn_start" });
		await nextTick();
		expect(stream.chunks).toHaveLength(2);
		expect(stream.chunks[1]).toBe('{"type":"agent_start"}\n{"type":"turn_start"}\n');
	});

	it("writes a record of a MiB or more as its own chunk, keeping the order", async () => {
		const stream = new FakeStream();
		const writer = new OutputWriter(stream);
		const big = "x".repeat(1024 * 1024);
		writer.write({ type: "a" });
		writer.write({ type: "b", text: big });
		writer.write({ type: "c" });
		writer.write({ type: "d" });
		await nextTick();
		expect(stream.chunks).toEqual(['{"type":"a"}\n', `{"type":"b","text":"${big}"}\n`, '{"type":"c"}\n{"type":"d"}\n']);
	});

	it("asks producers to wait while stdout is congested and releases them on drain", async () => {
		const stream = new FakeStream();
		const writer = new OutputWriter(stream);
		stream.full = true;
		expect(writer.write({ type: "response", command: "bash", success: true })).toBeInstanceOf(Promise);
		const waiting = writer.write({ type: "agent_start" });
		expect(waiting).toBeInstanceOf(Promise);
		let released = false;
		void waiting?.then(() => {
			released = true;
		});
		await nextTick();
		expect(released).toBe(false);
		stream.full = false;
		stream.emit("drain");
		await nextTick();
		expect(released).toBe(true);
		expect(writer.write({ type: "turn_start" })).toBeUndefined();
		await writer.flush();
		expect(stream.chunks.join("")).toBe(
			'{"type":"response","command":"bash","success":true}\n{"type":"agent_start"}\n{"type":"turn_start"}\n',
		);
	});

	it("drops records after a write error and reports it once", async () => {
		const stream = new FakeStream();
		const errors: string[] = [];
		const writer = new OutputWriter(stream, (error) => errors.push(error.message));
		stream.emit("error", new Error("EPIPE"));
		stream.emit("error", new Error("EPIPE again"));
		expect(writer.write({ type: "response", command: "get_state", success: true })).toBeUndefined();
		await writer.flush();
		expect(stream.chunks).toEqual([]);
		expect(errors).toEqual(["EPIPE"]);
		expect(writer.isBroken).toBe(true);
	});

	it("escapes U+2028 and U+2029 so the line stays whole", async () => {
		const stream = new FakeStream();
		const writer = new OutputWriter(stream);
		writer.write({ type: "response", text: "a\u2028b\u2029c" });
		expect(stream.chunks).toEqual(['{"type":"response","text":"a\\u2028b\\u2029c"}\n']);
		expect(JSON.parse(stream.chunks[0] ?? "")).toEqual({ type: "response", text: "a\u2028b\u2029c" });
	});
});
