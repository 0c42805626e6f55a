/**
 * Small pieces shared by the robustness tests: paced writes to an agent's stdin, a seeded random
 * source for the non-fast-check loops, and checks every record on stdout must pass.
 */
import { expect } from "vitest";
import type { RpcAgent, RpcRecord } from "../support/rpc-process.js";

/** Writes one chunk and resolves once the pipe accepted it. */
export function writeChunk(agent: RpcAgent, chunk: Buffer | string): Promise<void> {
	return new Promise((resolve, reject) => {
		agent.child.stdin.write(chunk, (error) => (error ? reject(error) : resolve()));
	});
}

/** A pause that is part of the stimulus (spacing writes or an abort), never a wait for a result. */
export function pause(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A small seeded generator (mulberry32), so random delays are the same on every run. */
export function seededRandom(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let value = state;
		value = Math.imul(value ^ (value >>> 15), value | 1);
		value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
		return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
	};
}

/** Every line the agent wrote parses to a JSON object with a string `type`. */
export function expectWellFormedOutput(agent: RpcAgent, start = 0): void {
	const malformed = agent.rawLines.slice(start).filter((line) => {
		let value: unknown;
		try {
			value = JSON.parse(line);
		} catch (error) {
			return error instanceof SyntaxError;
		}
		return (
			typeof value !== "object" ||
			value === null ||
			Array.isArray(value) ||
			typeof (value as Record<string, unknown>).type !== "string"
		);
	});
	expect(malformed.map((line) => line.slice(0, 200))).toEqual([]);
}

export function isAlive(agent: RpcAgent): boolean {
	return agent.child.exitCode === null && agent.child.signalCode === null;
}

/** The assistant message of a `message_end` record, or undefined for other records. */
export function assistantEnd(record: RpcRecord): { stopReason: string; errorMessage?: string } | undefined {
	if (record.type !== "message_end") return undefined;
	const message = record.message as { role: string; stopReason: string; errorMessage?: string };
	return message.role === "assistant" ? message : undefined;
}
