/** Where commands find the proxy inside the sandbox (a folder bound over the proxy's own). */
export const PROXY_FOLDER_INSIDE = "/tmp/.atomic-proxy";
export const PROXY_SOCKET_NAME = "proxy.sock";
/** The loopback port of the sandbox's own network where the bridge listens. */
export const PROXY_PORT_INSIDE = 3128;

/**
 * The bridge a sandboxed command's shell starts first: node listening on the sandbox's loopback
 * PROXY_PORT_INSIDE, each connection piped to the proxy's socket; it prints "ready" once listening.
 */
export function bridgeScript(): string {
	const socket = `${PROXY_FOLDER_INSIDE}/${PROXY_SOCKET_NAME}`;
	return [
		'const net = require("node:net");',
		"const server = net.createServer((client) => {",
		`  const upstream = net.connect(${JSON.stringify(socket)});`,
		"  client.on('error', () => upstream.destroy()); upstream.on('error', () => client.destroy());",
		"  client.pipe(upstream); upstream.pipe(client);",
		"});",
		`server.listen(${PROXY_PORT_INSIDE}, "127.0.0.1", () => process.stdout.write("ready\\n"));`,
	].join("\n");
}
