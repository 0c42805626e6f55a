import { createHash } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { textFrame } from "../../src/server/frames.js";

/**
 * The texts a real WebSocket client (the `ws` package) reads from a server that answers its
 * handshake and then writes `bytes` as they are.
 */
async function read(bytes: Buffer, count: number): Promise<string[]> {
	const server = createServer();
	const sockets: Duplex[] = [];
	server.on("upgrade", (request, socket) => {
		sockets.push(socket);
		const key = String(request.headers["sec-websocket-key"]);
		const accept = createHash("sha1").update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest("base64");
		socket.write(
			`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
		);
		socket.write(bytes);
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	const client = new WebSocket(`ws://127.0.0.1:${port}/`);
	const texts: string[] = [];
	try {
		await new Promise<void>((resolve, reject) => {
			client.on("message", (data, isBinary) => {
				if (isBinary) reject(new Error("a binary frame"));
				texts.push(data.toString());
				if (texts.length === count) resolve();
			});
			client.on("error", reject);
		});
	} finally {
		client.terminate();
		for (const socket of sockets) socket.destroy();
		await new Promise((resolve) => server.close(resolve));
	}
	return texts;
}

describe("a server's text frame", () => {
	it("carries any length in the 7-, 16- and 64-bit forms, and multi-byte text, as a client reads it", async () => {
		const texts = [0, 1, 125, 126, 127, 65_535, 65_536, 200_000].map((length) => "x".repeat(length));
		texts.push("é".repeat(63), "日本語".repeat(30_000));
		const frames = texts.map((text) => textFrame(text));
		expect(frames[2]?.length).toBe(2 + 125);
		expect(frames[3]?.length).toBe(4 + 126);
		expect(frames[6]?.length).toBe(10 + 65_536);
		// Written back to back, as a turn's frames go out together.
		expect(await read(Buffer.concat(frames), texts.length)).toEqual(texts);
	});
});
