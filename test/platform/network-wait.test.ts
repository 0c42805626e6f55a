import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { providerFetch } from "../../src/llm/http-transport.js";
import {
	cancelNetworkWait,
	duringNetworkWait,
	networkWaitBegan,
	WAIT_GRACE_MS,
} from "../../src/platform/network-wait.js";

const nextImmediate = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(() => {
	cancelNetworkWait("a");
	cancelNetworkWait("b");
});

describe("work queued for a network wait", () => {
	it("runs once, WAIT_GRACE_MS after the request that began the wait (a fast reply is read first)", async () => {
		const runs: string[] = [];
		duringNetworkWait("a", () => runs.push("a"), 10_000);
		duringNetworkWait("b", () => runs.push("b"), 10_000);
		networkWaitBegan();
		expect(runs).toEqual([]);
		await nextImmediate();
		expect(runs).toEqual([]);
		await sleep(WAIT_GRACE_MS + 20);
		expect(runs).toEqual(["a", "b"]);
		networkWaitBegan();
		await sleep(WAIT_GRACE_MS + 20);
		expect(runs).toEqual(["a", "b"]);
	});

	it("runs after its fallback time when no request is sent, and is replaced or cancelled by key", async () => {
		const runs: string[] = [];
		duringNetworkWait("a", () => runs.push("first"), 20);
		duringNetworkWait("a", () => runs.push("second"), 20);
		duringNetworkWait("b", () => runs.push("cancelled"), 20);
		cancelNetworkWait("b");
		await sleep(60);
		expect(runs).toEqual(["second"]);
		networkWaitBegan();
		await sleep(WAIT_GRACE_MS + 20);
		expect(runs).toEqual(["second"]);
	});

	it("runs while a provider request's reply is awaited", async () => {
		const events: string[] = [];
		const server = createServer((_request, response) => {
			events.push("request received");
			setTimeout(() => response.end("reply"), 200);
		});
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		try {
			const { port } = server.address() as AddressInfo;
			duringNetworkWait("a", () => events.push("queued work"), 10_000);
			const response = await providerFetch(`http://127.0.0.1:${port}/`, { method: "POST", body: "{}" });
			events.push(`reply: ${await response.text()}`);
			expect(events.indexOf("queued work")).toBeGreaterThanOrEqual(0);
			expect(events.indexOf("queued work")).toBeLessThan(events.indexOf("reply: reply"));
		} finally {
			await new Promise((resolve) => server.close(resolve));
		}
	});
});
