import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { type OutputStream, OutputWriter } from "../../src/rpc/output.js";

/** A stdout stand-in that records each chunk and can refuse more (backpressure). */
class FakeStream extends EventEmitter implements OutputStream {
	readonly chunks: string[] = [];
	/** The chunks as written: large parts go out as bytes. */
	readonly written: (string | Uint8Array)[] = [];
	full = false;

	write(chunk: string | Uint8Array, callback?: (error?: Error | null) => void): boolean {
		this.written.push(chunk);
		this.chunks.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
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

	it("writes a record of 16 KiB or more (a command's output delta) as its own chunk, keeping the order", async () => {
		const stream = new FakeStream();
		const writer = new OutputWriter(stream);
		const big = "x".repeat(16 * 1024);
		writer.write({ type: "a" });
		writer.write({ type: "b", text: big });
		writer.write({ type: "c" });
		writer.write({ type: "d" });
		await nextTick();
		expect(stream.chunks).toEqual(['{"type":"a"}\n', `{"type":"b","text":"${big}"}\n`, '{"type":"c"}\n{"type":"d"}\n']);
	});

	it("encodes a large message once for the records that share it, and forgets it after agent_end", async () => {
		const stream = new FakeStream();
		const writer = new OutputWriter(stream);
		const message = { role: "user", content: [{ type: "text", text: "é".repeat(600 * 1024) }], timestamp: 1 };
		writer.write({ type: "message_start", message });
		writer.write({ type: "message_end", message });
		writer.write({ type: "agent_end", messages: [message] });
		await nextTick();
		const text = JSON.stringify(message);
		expect(stream.chunks.join("")).toBe(
			`{"type":"message_start","message":${text}}\n{"type":"message_end","message":${text}}\n{"type":"agent_end","messages":[${text}]}\n`,
		);
		const encoded = stream.written.filter((chunk): chunk is Uint8Array => typeof chunk !== "string");
		expect(encoded).toHaveLength(3);
		expect(new Set(encoded).size).toBe(1);
		// After agent_end the next run's copy of an equal message is encoded anew, not kept.
		writer.write({ type: "message_start", message: structuredClone(message) });
		await nextTick();
		const later = stream.written.at(-2);
		expect(typeof later === "string" || later === encoded[0]).toBe(false);
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
