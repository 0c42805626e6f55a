import { afterEach } from "vitest";
import { LlmServer, type LlmServerOptions } from "./llm-server.js";

/**
 * For a test file whose tests each start their own loopback model servers: returns the starter,
 * and closes every server a test started after that test.
 */
export function useLlmServers(): (options?: LlmServerOptions) => Promise<LlmServer> {
	const servers: LlmServer[] = [];
	afterEach(async () => {
		for (const server of servers.splice(0)) await server.close();
	});
	return async (options) => {
		const server = await LlmServer.start(options);
		servers.push(server);
		return server;
	};
}
