// A model server "far away over TLS" for the bench: clients connect to a relay that holds every
// byte back for `oneWayDelayMs` in each direction (a round trip of twice that), behind which a TLS
// server, with the test certificate (test/support/tls), passes the plain bytes on to the mock.
// A client trusts the certificate through NODE_EXTRA_CA_CERTS=<caFile>. The TCP handshake with the
// relay itself is local; the TLS handshake and every request pay the delay.
import { readFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { dirname, join } from "node:path";
import { createServer as createTlsServer } from "node:tls";
import { fileURLToPath } from "node:url";

const tlsDir = join(dirname(dirname(fileURLToPath(import.meta.url))), "test", "support", "tls");
export const caFile = join(tlsDir, "cert.pem");

function listen(server) {
	return new Promise((resolve, reject) => {
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => resolve(server.address().port));
	});
}

/** Both ways between two sockets; either one closing or failing ends both. */
function join2(a, b, delayMs) {
	const pass = (from, to) => {
		from.on("data", (chunk) => (delayMs > 0 ? setTimeout(() => to.write(chunk), delayMs) : to.write(chunk)));
		from.on("end", () => (delayMs > 0 ? setTimeout(() => to.end(), delayMs) : to.end()));
	};
	pass(a, b);
	pass(b, a);
	for (const socket of [a, b]) socket.on("error", () => (socket === a ? b : a).destroy());
	for (const socket of [a, b]) socket.on("close", () => (socket === a ? b : a).destroy());
}

/** Starts the relay in front of the server at `targetUrl` (http://host:port); resolves with its https baseUrl. */
export async function startTlsRelay(targetUrl, { oneWayDelayMs = 10 } = {}) {
	const target = new URL(targetUrl);
	const sockets = new Set();
	const track = (socket) => {
		// No Nagle: a held-back small write must not wait for an ACK on top of the delay.
		socket.setNoDelay(true);
		sockets.add(socket);
		socket.on("close", () => sockets.delete(socket));
		return socket;
	};
	const tls = createTlsServer({ key: readFileSync(join(tlsDir, "key.pem")), cert: readFileSync(caFile) }, (secure) =>
		join2(track(secure), track(createConnection(Number(target.port), target.hostname)), 0),
	);
	const tlsPort = await listen(tls);
	const relay = createServer((client) =>
		join2(track(client), track(createConnection(tlsPort, "127.0.0.1")), oneWayDelayMs),
	);
	const port = await listen(relay);
	return {
		baseUrl: `https://127.0.0.1:${port}`,
		caFile,
		async stop() {
			for (const socket of sockets) socket.destroy();
			await Promise.all([tls, relay].map((server) => new Promise((resolve) => server.close(resolve))));
		},
	};
}
