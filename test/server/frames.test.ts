import { describe, expect, it } from "vitest";
import { Receiver } from "ws";
import { textFrame } from "../../src/server/frames.js";

/** The texts a WebSocket client reads from `bytes` (ws's own frame parser, as a client uses it). */
function read(bytes: Buffer): string[] {
	const texts: string[] = [];
	const receiver = new Receiver({ isServer: false });
	receiver.on("message", (data: Buffer, isBinary: boolean) => {
		expect(isBinary).toBe(false);
		texts.push(data.toString("utf8"));
	});
	receiver.write(bytes);
	return texts;
}

describe("a server's text frame", () => {
	it("carries any length in the 7-, 16- and 64-bit forms, and multi-byte text, as a client reads it", () => {
		const texts = [0, 1, 125, 126, 127, 65_535, 65_536, 200_000].map((length) => "x".repeat(length));
		texts.push("é".repeat(63), "日本語".repeat(30_000));
		const frames = texts.map((text) => textFrame(text));
		expect(frames[2]?.length).toBe(2 + 125);
		expect(frames[3]?.length).toBe(4 + 126);
		expect(frames[6]?.length).toBe(10 + 65_536);
		// Written back to back, as a turn's frames go out together.
		expect(read(Buffer.concat(frames))).toEqual(texts);
	});
});
