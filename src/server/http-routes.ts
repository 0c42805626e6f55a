import type { IncomingMessage, ServerResponse } from "node:http";
import type { WebLogin } from "./login.js";
import { isWebAsset, serveWebAsset } from "./web-assets.js";

/** What the HTTP routes answer from. */
export interface HttpRoutes {
	version: string;
	login: WebLogin;
	/** The built web page (dist/web); undefined: none. */
	webRoot?: string;
}

/** The plain HTTP side of `atomic serve`: health, the JSON Schema, login and logout, and a 404 naming `/ws`. */
export function serveHttp(request: IncomingMessage, response: ServerResponse, routes: HttpRoutes): void {
	const path = (request.url ?? "/").split("?")[0];
	if (request.method === "GET" && path === "/health") {
		response.writeHead(200, { "content-type": "application/json" });
		response.end(JSON.stringify({ ok: true, version: routes.version }));
		return;
	}
	if (request.method === "GET" && path === "/rpc-schema.json") {
		void import("../rpc/protocol/schema-document.js").then(({ rpcSchemaText }) => {
			response.writeHead(200, { "content-type": "application/json" });
			response.end(rpcSchemaText());
		});
		return;
	}
	if (request.method === "GET" && path !== undefined && isWebAsset(path)) {
		void serveWebAsset(routes.webRoot, path, response);
		return;
	}
	if (path === "/login" || path === "/logout") {
		routes.login.handle(request, response, path);
		return;
	}
	response.writeHead(404, { "content-type": "text/plain" });
	response.end("Not found: the agent is at /ws (WebSocket), its health at /health, the login at /login\n");
}
