/**
 * A WebSocket text frame as a server sends it (RFC 6455 §5.2): FIN, opcode 1, no mask, the
 * payload length in 7, 16 or 64 bits. A server's frames are the same bytes for every client, so
 * an event is framed once and the same bytes are written to each connection.
 */
export function textFrame(text: string): Buffer {
	const length = Buffer.byteLength(text, "utf8");
	const header = length < 126 ? 2 : length < 65_536 ? 4 : 10;
	const frame = Buffer.allocUnsafe(header + length);
	frame[0] = 0x81;
	if (length < 126) frame[1] = length;
	else if (length < 65_536) {
		frame[1] = 126;
		frame.writeUInt16BE(length, 2);
	} else {
		frame[1] = 127;
		frame.writeBigUInt64BE(BigInt(length), 2);
	}
	frame.write(text, header, "utf8");
	return frame;
}
