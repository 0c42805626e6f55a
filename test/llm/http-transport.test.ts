import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { providerFetch } from "../../src/llm/http-transport.js";

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

let server: Server;
let base: string;
let handler: Handler;
const sockets = new Set<Socket>();
const seen: { method: string; url: string; headers: IncomingMessage["headers"]; body: string; socket: Socket }[] = [];

beforeEach(async () => {
	seen.length = 0;
	handler = (_request, _body, response) => response.end("ok");
	server = createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on("data", (chunk: Buffer) => chunks.push(chunk));
		request.on("end", () => {
			const body = Buffer.concat(chunks).toString("utf8");
			seen.push({
				method: request.method ?? "",
				url: request.url ?? "",
				headers: request.headers,
				body,
				socket: request.socket,
			});
			handler(request, body, response);
		});
	});
	server.on("connection", (socket) => {
		sockets.add(socket);
		socket.on("close", () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
	for (const socket of sockets) socket.destroy();
	await new Promise((resolve) => server.close(resolve));
});

async function bodyText(response: Response): Promise<string> {
	const decoder = new TextDecoder();
	const reader = response.body?.getReader();
	if (!reader) return "";
	let text = "";
	for (let next = await reader.read(); !next.done; next = await reader.read()) {
		text += decoder.decode(next.value, { stream: true });
	}
	return text + decoder.decode();
}

describe("the provider fetch", () => {
	it("sends the method, headers and body, and answers with the status, headers and body", async () => {
		handler = (_request, body, response) => {
			response.writeHead(201, "Made", { "x-reply": "yes", "content-type": "application/json" });
			response.end(JSON.stringify({ echoed: body }));
		};
		const headers = new Headers({ "x-api-key": "k", "content-type": "application/json" });
		const response = await providerFetch(`${base}/v1/messages?beta=true`, {
			method: "POST",
			headers,
			body: '{"é":1}',
		});
		expect(response.status).toBe(201);
		expect(response.statusText).toBe("Made");
		expect(response.ok).toBe(true);
		expect(response.headers.get("x-reply")).toBe("yes");
		expect(await response.json()).toEqual({ echoed: '{"é":1}' });
		expect(seen[0]).toMatchObject({ method: "POST", url: "/v1/messages?beta=true", body: '{"é":1}' });
		expect(seen[0]?.headers).toMatchObject({
			"x-api-key": "k",
			"content-length": String(Buffer.byteLength('{"é":1}')),
		});
	});

	it("takes headers as a plain object or a list of pairs", async () => {
		await bodyText(await providerFetch(base, { headers: { "x-a": "1" } }));
		await bodyText(await providerFetch(base, { headers: [["x-b", "2"]] }));
		expect(seen.map((request) => [request.headers["x-a"], request.headers["x-b"]])).toEqual([
			["1", undefined],
			[undefined, "2"],
		]);
	});

	it("hands the body over chunk by chunk as the server sends it", async () => {
		let release: () => void = () => undefined;
		handler = (_request, _body, response) => {
			response.writeHead(200, { "content-type": "text/event-stream" });
			response.write("data: one\n\n");
			release = () => response.end("data: two\n\n");
		};
		const response = await providerFetch(base, { method: "POST", body: "{}" });
		const reader = response.body?.getReader();
		if (!reader) throw new Error("no body");
		const first = await reader.read();
		expect(new TextDecoder().decode(first.value)).toBe("data: one\n\n");
		release();
		let rest = "";
		for (let next = await reader.read(); !next.done; next = await reader.read())
			rest += new TextDecoder().decode(next.value);
		expect(rest).toBe("data: two\n\n");
	});

	it("keeps the connection alive between requests", async () => {
		await bodyText(await providerFetch(base));
		await bodyText(await providerFetch(base));
		expect(seen).toHaveLength(2);
		expect(seen[0]?.socket).toBe(seen[1]?.socket);
	});

	it("decodes a compressed body", async () => {
		handler = (_request, _body, response) => {
			response.writeHead(200, { "content-encoding": "gzip" });
			response.end(gzipSync("squeezed"));
		};
		expect(await bodyText(await providerFetch(base))).toBe("squeezed");
	});

	it("has no body for a 204", async () => {
		handler = (_request, _body, response) => {
			response.writeHead(204);
			response.end();
		};
		const response = await providerFetch(base, { method: "DELETE" });
		expect(response.status).toBe(204);
		expect(response.body).toBeNull();
	});

	it("follows redirects as fetch does: 307 keeps the POST and its body, 303 turns it into a GET", async () => {
		handler = (request, _body, response) => {
			if (request.url === "/a") response.writeHead(307, { location: "/b" }).end();
			else if (request.url === "/b") response.writeHead(303, { location: `${base}/c` }).end();
			else response.end(`at ${request.url}`);
		};
		const response = await providerFetch(`${base}/a`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: "{}",
		});
		expect(await bodyText(response)).toBe("at /c");
		expect(seen.map((request) => [request.method, request.url, request.body])).toEqual([
			["POST", "/a", "{}"],
			["POST", "/b", "{}"],
			["GET", "/c", ""],
		]);
		expect(seen[2]?.headers["content-type"]).toBeUndefined();
	});

	it("gives up on a redirect loop with fetch's connection error", async () => {
		handler = (_request, _body, response) => response.writeHead(302, { location: "/again" }).end();
		await expect(providerFetch(`${base}/again`)).rejects.toThrow("fetch failed");
	});

	it("fails as fetch does when nothing listens: a TypeError whose cause has the code", async () => {
		const closed = createServer();
		await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
		const port = (closed.address() as AddressInfo).port;
		await new Promise((resolve) => closed.close(resolve));
		const failure = await providerFetch(`http://127.0.0.1:${port}/`).then(
			() => undefined,
			(error: unknown) => error,
		);
		expect(failure).toBeInstanceOf(TypeError);
		expect((failure as TypeError).message).toBe("fetch failed");
		expect(((failure as TypeError).cause as NodeJS.ErrnoException).code).toBe("ECONNREFUSED");
	});

	it("ends the body with an error when the connection drops mid-body, and sends the request only once", async () => {
		handler = (_request, _body, response) => {
			response.writeHead(200, { "content-type": "text/event-stream" });
			response.write("data: partial\n\n", () => response.socket?.destroy());
		};
		const response = await providerFetch(base, { method: "POST", body: "{}" });
		await expect(bodyText(response)).rejects.toThrow("fetch failed");
		// A cut before the response head: the request fails, it is not sent again.
		handler = (_request, _body, response) => response.socket?.destroy();
		await expect(providerFetch(base, { method: "POST", body: "{}" })).rejects.toThrow("fetch failed");
		expect(seen).toHaveLength(2);
	});

	it("rejects with the abort reason, before the response and while the body streams", async () => {
		handler = () => undefined; // never answers
		const early = new AbortController();
		const pending = providerFetch(base, { signal: early.signal });
		setTimeout(() => early.abort(), 20);
		await expect(pending).rejects.toMatchObject({ name: "AbortError" });

		handler = (_request, _body, response) => {
			response.writeHead(200);
			response.write("start");
		};
		const late = new AbortController();
		const response = await providerFetch(base, { signal: late.signal });
		const reader = response.body?.getReader();
		if (!reader) throw new Error("no body");
		await reader.read();
		late.abort();
		await expect(reader.read()).rejects.toMatchObject({ name: "AbortError" });

		const already = new AbortController();
		already.abort();
		await expect(providerFetch(base, { signal: already.signal })).rejects.toMatchObject({ name: "AbortError" });
	});

	it("leaves to the global fetch what it does not do itself: credentials in the URL, other schemes, bad URLs", async () => {
		const withCredentials = `http://user:secret@127.0.0.1:${new URL(base).port}/`;
		await expect(providerFetch(withCredentials)).rejects.toThrow(/credentials/);
		await expect(providerFetch("data:text/plain,hello").then((response) => response.text())).resolves.toBe("hello");
		await expect(providerFetch("http://[not a url")).rejects.toThrow(TypeError);
		await expect(providerFetch(base, { redirect: "error" }).then((response) => response.text())).resolves.toBe("ok");
		expect(seen).toHaveLength(1);
	});
});
