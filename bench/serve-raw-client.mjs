// A WebSocket client of `atomic serve` on a bare net.Socket: it performs the handshake itself and
// reads the server's frames from bytes, so it can read at a set rate (the socket is paused and
// resumed) and it spends almost nothing per event (an event's record is never decoded, only its
// `type` is read from the frame's first bytes).
import { createHash, randomBytes } from "node:crypto";
import { connect } from "node:net";
import { performance } from "node:perf_hooks";

const WEBSOCKET_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
const typePrefix = Buffer.from('{"type":"');
const quote = 0x22;
/** How a message_update record's text begins: such a frame is counted from its bytes alone. */
const updatePrefix = Buffer.from('{"type":"message_update"');

/** A client frame (masked, as RFC 6455 requires of clients) carrying `payload` with `opcode`. */
function clientFrame(opcode, payload) {
	const length = payload.length;
	const header = length < 126 ? 2 : length < 65_536 ? 4 : 10;
	const frame = Buffer.alloc(header + 4 + length);
	frame[0] = 0x80 | opcode;
	if (length < 126) frame[1] = 0x80 | length;
	else if (length < 65_536) {
		frame[1] = 0x80 | 126;
		frame.writeUInt16BE(length, 2);
	} else {
		frame[1] = 0x80 | 127;
		frame.writeBigUInt64BE(BigInt(length), 2);
	}
	const mask = randomBytes(4);
	mask.copy(frame, header);
	for (let index = 0; index < length; index++) frame[header + 4 + index] = payload[index] ^ mask[index % 4];
	return frame;
}

/**
 * A record's `type` and, for the few records that are read (responses, ready, and any record whose
 * text does not start with its type), the record itself.
 */
function readRecord(payload) {
	if (payload.length > typePrefix.length && payload.subarray(0, typePrefix.length).equals(typePrefix)) {
		const end = payload.indexOf(quote, typePrefix.length);
		const type = end < 0 ? "?" : payload.toString("latin1", typePrefix.length, end);
		if (type !== "response" && type !== "ready") return { type };
	}
	const record = JSON.parse(payload.toString("utf8"));
	return { type: typeof record?.type === "string" ? record.type : "?", record };
}

export class RawServeClient {
	/**
	 * Connects to `url` (ws://host:port/path) with `token`; resolves once the handshake is done and
	 * `ready` has arrived. `onEvent(type, time)` is called for every record that is not a response,
	 * `onClose()` when the connection ends.
	 */
	static connect(url, token, { onEvent, onClose, onUpdate } = {}) {
		const { hostname, port, pathname } = new URL(url);
		const key = randomBytes(16).toString("base64");
		const accept = createHash("sha1").update(`${key}${WEBSOCKET_GUID}`).digest("base64");
		const socket = connect({ host: hostname, port: Number(port) });
		socket.setNoDelay(true);
		const client = new RawServeClient(socket, accept, onEvent, onClose);
		if (onUpdate) client.onUpdate = onUpdate;
		socket.once("connect", () =>
			socket.write(
				[
					`GET ${pathname} HTTP/1.1`,
					`Host: ${hostname}:${port}`,
					"Upgrade: websocket",
					"Connection: Upgrade",
					`Sec-WebSocket-Key: ${key}`,
					"Sec-WebSocket-Version: 13",
					`Authorization: Bearer ${token}`,
					"",
					"",
				].join("\r\n"),
			),
		);
		return new Promise((resolve, reject) => {
			socket.once("error", reject);
			client.waitFor((type) => type === "ready").then(() => resolve(client), reject);
		});
	}

	constructor(socket, accept, onEvent, onClose) {
		this.socket = socket;
		this.accept = accept;
		this.onEvent = onEvent;
		/** Called for each message_update with its arrival time (default: onEvent). */
		this.onUpdate = (time) => onEvent?.("message_update", time);
		this.upgraded = false;
		this.pending = Buffer.alloc(0);
		this.fragments = [];
		this.bytesRead = 0;
		this.readRate = 0;
		this.readTimer = undefined;
		this.waiters = new Set();
		this.responses = [];
		this.counter = 0;
		this.closed = false;
		socket.on("data", (chunk) => this.onData(chunk));
		socket.on("close", () => {
			this.closed = true;
			clearTimeout(this.readTimer);
			for (const waiter of this.waiters) waiter.reject(new Error("the connection closed"));
			this.waiters.clear();
			onClose?.();
		});
		socket.on("error", (error) => {
			for (const waiter of this.waiters) waiter.reject(error);
			this.waiters.clear();
		});
	}

	/**
	 * Reads at most `bytesPerSecond` from now on (0: as fast as it comes): after each chunk the
	 * socket pauses for as long as that chunk takes at this rate, so the server's writes to it wait.
	 */
	setReadRate(bytesPerSecond) {
		this.readRate = bytesPerSecond;
		if (bytesPerSecond === 0 && this.readTimer !== undefined) {
			clearTimeout(this.readTimer);
			this.readTimer = undefined;
			this.socket.resume();
		}
	}

	onData(chunk) {
		const time = performance.now();
		this.bytesRead += chunk.length;
		if (this.readRate > 0) {
			this.socket.pause();
			clearTimeout(this.readTimer);
			this.readTimer = setTimeout(
				() => {
					this.readTimer = undefined;
					if (!this.closed) this.socket.resume();
				},
				(chunk.length / this.readRate) * 1000,
			);
		}
		this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
		if (!this.upgraded && !this.readHandshake()) return;
		this.readFrames(time);
	}

	/** Consumes the handshake's answer once it is complete; false while it is not. */
	readHandshake() {
		const end = this.pending.indexOf("\r\n\r\n");
		if (end < 0) return false;
		const head = this.pending.toString("latin1", 0, end);
		this.pending = this.pending.subarray(end + 4);
		const status = head.slice(0, head.indexOf("\r\n"));
		const accept = /^sec-websocket-accept:\s*(\S+)/im.exec(head)?.[1];
		if (!/^HTTP\/1\.1 101 /.test(status) || accept !== this.accept) {
			const error = new Error(`the WebSocket handshake failed: ${status}`);
			for (const waiter of this.waiters) waiter.reject(error);
			this.waiters.clear();
			this.socket.destroy();
			return false;
		}
		this.upgraded = true;
		return true;
	}

	readFrames(time) {
		let offset = 0;
		const buffer = this.pending;
		while (buffer.length - offset >= 2) {
			const first = buffer[offset];
			let length = buffer[offset + 1] & 0x7f;
			let header = 2;
			if (length === 126) {
				if (buffer.length - offset < 4) break;
				length = buffer.readUInt16BE(offset + 2);
				header = 4;
			} else if (length === 127) {
				if (buffer.length - offset < 10) break;
				length = Number(buffer.readBigUInt64BE(offset + 2));
				header = 10;
			}
			if (buffer.length - offset < header + length) break;
			const start = offset + header;
			offset += header + length;
			// A whole message_update text frame: counted, never decoded (the figures' hot path).
			if (
				first === 0x81 &&
				this.fragments.length === 0 &&
				length >= updatePrefix.length &&
				buffer.compare(updatePrefix, 0, updatePrefix.length, start, start + updatePrefix.length) === 0
			) {
				this.onUpdate?.(time);
				continue;
			}
			this.onFrame(first & 0x80, first & 0x0f, buffer.subarray(start, start + length), time);
		}
		this.pending = offset === buffer.length ? Buffer.alloc(0) : buffer.subarray(offset);
	}

	onFrame(fin, opcode, payload, time) {
		if (opcode === 0x9) {
			this.socket.write(clientFrame(0xa, payload));
			return;
		}
		if (opcode === 0x8) {
			this.socket.end(clientFrame(0x8, payload.subarray(0, 2)));
			return;
		}
		if (opcode !== 0x1 && opcode !== 0x0) return;
		if (!fin || this.fragments.length > 0) {
			this.fragments.push(Buffer.from(payload));
			if (!fin) return;
			payload = Buffer.concat(this.fragments);
			this.fragments = [];
		}
		const { type, record } = readRecord(payload);
		if (type === "response") this.responses.push(record);
		else if (type !== "ready") this.onEvent?.(type, time);
		for (const waiter of [...this.waiters]) {
			if (waiter.predicate(type)) {
				this.waiters.delete(waiter);
				waiter.resolve();
			}
		}
	}

	/** Resolves at the next record whose type satisfies `predicate`. */
	waitFor(predicate, timeoutMs = 60_000) {
		return awaitRecord(this.waiters, predicate, timeoutMs);
	}

	/** Sends a command and resolves with its successful response. */
	async request(command) {
		const id = `r${++this.counter}`;
		const answered = this.waitFor((type) => type === "response" && this.responses.some((record) => record.id === id));
		this.socket.write(clientFrame(0x1, Buffer.from(JSON.stringify({ ...command, id }))));
		await answered;
		const response = this.responses.find((record) => record.id === id);
		this.responses = this.responses.filter((record) => record !== response);
		if (!response?.success) throw new Error(`${command.type} failed: ${response?.error}`);
		return response;
	}

	close() {
		clearTimeout(this.readTimer);
		this.socket.destroy();
	}
}

/** The message_update events of one prompt at one client: how many, the first's and the last's arrival. */
function noUpdates() {
	return { count: 0, first: undefined, last: undefined };
}

/**
 * `count` bare-socket clients attached to one session (a new one unless `sessionId` is given). Each
 * notes the events of the current prompt as `{type, time}`.
 */
export class RawClientGroup {
	static async attach(url, token, count, sessionId = null) {
		const group = new RawClientGroup();
		for (let index = 0; index < count; index++) {
			const stream = { records: [], updates: noUpdates(), settled: undefined, lost: undefined };
			const client = await RawServeClient.connect(url, token, {
				onEvent: (type, time) => {
					stream.records.push({ type, time });
					if (type === "agent_settled") stream.settled?.(time);
				},
				// Counted, not kept: 10,000 of them per client and prompt.
				onUpdate: (time) => {
					const updates = stream.updates;
					updates.count++;
					updates.first ??= time;
					updates.last = time;
				},
				onClose: () => stream.lost?.(new Error(`client ${index} lost its connection`)),
			});
			sessionId = (await client.request({ type: "attach", sessionId })).data.sessionId;
			group.clients.push(client);
			group.streams.push(stream);
		}
		group.sessionId = sessionId;
		return group;
	}

	constructor() {
		this.clients = [];
		this.streams = [];
		this.sessionId = null;
	}

	/**
	 * Sends `message` from the first client and waits for every client's agent_settled. Resolves with
	 * when it was sent, when each client had its agent_settled, and each client's events of the prompt.
	 */
	async prompt(message) {
		const settled = this.streams.map((stream) => {
			stream.records = [];
			stream.updates = noUpdates();
			return new Promise((resolve, reject) => {
				stream.settled = resolve;
				stream.lost = reject;
			});
		});
		const sentAt = performance.now();
		const request = this.clients[0].request({ type: "prompt", message });
		const [settledAt] = await Promise.all([Promise.all(settled), request]);
		for (const stream of this.streams) {
			stream.settled = undefined;
			stream.lost = undefined;
		}
		return {
			sentAt,
			settledAt,
			records: this.streams.map((stream) => stream.records),
			updates: this.streams.map((stream) => stream.updates),
		};
	}

	close() {
		for (const client of this.clients) client.close();
	}
}

/**
 * A promise settled by one of a client's records: adds a waiter `{predicate, resolve, reject}` to
 * `waiters` (the client calls `resolve(record)` on a match and `reject(error)` when it closes),
 * rejected after `timeoutMs`.
 */
export function awaitRecord(waiters, predicate, timeoutMs) {
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => {
			waiters.delete(waiter);
			reject(new Error("timed out waiting for a record"));
		}, timeoutMs);
		const waiter = {
			predicate,
			resolve: (record) => {
				clearTimeout(timer);
				resolve(record);
			},
			reject: (error) => {
				clearTimeout(timer);
				reject(error);
			},
		};
		waiters.add(waiter);
	});
}
