import { mkdirSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { join, resolve } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, expect, it } from "vitest";
import { cleanups, startServer, useServeHarness } from "../server/harness.js";
import { textReply, toolReply } from "../support/llm-server.js";
import { describeWithBrowser, launchBrowser } from "./browser.js";

const WEB_ROOT = resolve("dist/web");
const SHOTS = process.env.ATOMIC_WEB_SCREENSHOTS;
const DIALOGS = join(import.meta.dirname, "../rpc/fixtures/extensions/dialogs.ts");

const harness = useServeHarness();
let browser: Browser | undefined;

afterAll(async () => {
	await browser?.close();
});

/** A server with the built page, its one-time login URL, and an observer token. */
async function startWebServer(options: { settings?: Record<string, unknown>; extensions?: string[] } = {}) {
	const started = await startServer({ ...options, webRoot: WEB_ROOT });
	if (!started.loginUrl) throw new Error(`no login URL in ${started.lines.join("\n")}`);
	return { ...started, loginUrl: started.loginUrl };
}

async function newContext(viewport = { width: 1280, height: 800 }): Promise<BrowserContext> {
	browser ??= await launchBrowser();
	const context = await browser.newContext({ viewport });
	cleanups.push(() => context.close());
	return context;
}

/** A logged-in page (through the printed one-time URL). */
async function loggedIn(
	loginUrl: string,
	viewport?: { width: number; height: number },
): Promise<{ page: Page; context: BrowserContext }> {
	const context = await newContext(viewport);
	const page = await context.newPage();
	await page.goto(loginUrl);
	await page.getByRole("list", { name: "Sessions" }).getByRole("button").first().waitFor();
	return { page, context };
}

async function shot(page: Page, name: string): Promise<void> {
	if (!SHOTS) return;
	mkdirSync(SHOTS, { recursive: true });
	await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

async function send(page: Page, text: string): Promise<void> {
	await page.getByRole("textbox", { name: "Message" }).fill(text);
	await page.getByRole("textbox", { name: "Message" }).press("Enter");
}

describeWithBrowser("the web page of atomic serve", () => {
	it("logs in with the printed link, streams a reply and shows a tool call with its output", async () => {
		const { loginUrl, origin } = await startWebServer();
		const { page, context } = await loggedIn(loginUrl);
		expect(page.url()).toBe(`${origin}/`);
		const cookies = await context.cookies();
		expect(cookies.find((cookie) => cookie.name === "atomic_token")).toMatchObject({
			httpOnly: true,
			sameSite: "Strict",
		});

		harness.llm.enqueue(
			toolReply("bash", { command: "echo from-the-tool" }),
			textReply("The tool said **from-the-tool**.\n\n```js\nconst answer = 42;\n```"),
		);
		await send(page, "run the tool");
		const conversation = page.locator("#conversation");
		await conversation.getByText("from-the-tool", { exact: false }).first().waitFor();
		await conversation.locator("strong", { hasText: "from-the-tool" }).waitFor();
		await expect.poll(() => conversation.locator(".kind-tool-result").count()).toBe(1);
		expect(await conversation.locator(".kind-tool-result").textContent()).toContain("from-the-tool");
		expect(await conversation.locator("pre code.hljs").count()).toBeGreaterThan(0);
		await expect.poll(() => page.getByRole("button", { name: "Stop" }).isDisabled()).toBe(true);
		// The session's usage so far.
		await expect.poll(() => page.locator("#usage").textContent()).toMatch(/\d+ tokens/);
		await shot(page, "conversation");
	});

	it("shows an approval in two pages; answered in one, it leaves the other at once", async () => {
		const { loginUrl } = await startWebServer({ settings: { permissions: { mode: "ask" } } });
		const { page: first, context } = await loggedIn(loginUrl);
		const second = await context.newPage();
		await second.goto(`${new URL(loginUrl).origin}/`);
		await second.getByRole("list", { name: "Sessions" }).getByRole("button").first().waitFor();

		harness.llm.enqueue(toolReply("bash", { command: "echo approved" }), textReply("done"));
		await send(first, "run it");
		const inFirst = first.getByRole("dialog");
		const inSecond = second.getByRole("dialog");
		await inFirst.waitFor();
		await inSecond.waitFor();
		expect(await inFirst.getByRole("button", { name: "Always allow" }).count()).toBe(1);
		await shot(first, "approval");
		await inSecond.getByRole("button", { name: "Allow", exact: true }).click();
		await inFirst.waitFor({ state: "detached" });
		await inSecond.waitFor({ state: "detached" });
		await first.locator("#conversation").getByText("done", { exact: true }).waitFor();
	});

	it("shows an extension's dialog and sends its answer", async () => {
		const { loginUrl } = await startWebServer({ extensions: [DIALOGS] });
		const { page } = await loggedIn(loginUrl);
		await send(page, "/ask");
		const dialog = page.getByRole("dialog");
		await dialog.getByText("Proceed?").waitFor();
		await dialog.getByRole("button", { name: "Yes" }).click();
		await dialog.waitFor({ state: "detached" });
		await page.locator("#toasts").getByText("ask confirmed=true").waitFor();
	});

	it("comes back after the connection is cut mid-reply and shows the whole reply once", async () => {
		const { port, loginUrl } = await startWebServer();
		// The page talks to the server through a relay the test can cut (the relay's origin is the page's).
		const relay = await startRelay(port);
		cleanups.push(() => relay.close());
		const context = await newContext();
		const page = await context.newPage();
		const code = new URL(loginUrl).searchParams.get("code");
		await page.goto(`http://127.0.0.1:${relay.port}/login?code=${code}`);
		await page.getByRole("list", { name: "Sessions" }).getByRole("button").first().waitFor();

		const pieces = Array.from({ length: 30 }, (_value, index) => `word${index} `);
		harness.llm.enqueue({ blocks: [{ type: "text", text: pieces.join(""), chunks: pieces }], delayMs: 40 });
		await send(page, "a slow reply");
		await page.locator("#conversation").getByText("word3", { exact: false }).first().waitFor();
		relay.cut();
		await page.locator("#status").getByText("Reconnecting…").waitFor();
		await page.locator("#conversation .kind-assistant:not(.streaming)").getByText("word29", { exact: false }).waitFor();
		await expect.poll(() => page.locator("#status").textContent()).toBe("");
		const text = (await page.locator("#conversation").textContent()) ?? "";
		expect(text.split("word17 ").length - 1).toBe(1);
		expect(text).toContain(pieces.join("").trim());
	});

	it("shows an observer everything and lets it send nothing", async () => {
		const { origin, observer } = await startWebServer();
		const context = await newContext();
		const page = await context.newPage();
		await page.goto(`${origin}/login`);
		await page.locator('input[name="token"]').fill(observer);
		await page.getByRole("button", { name: "Log in" }).click();
		await page.getByText("Read-only: this login is an observer's.").waitFor();
		expect(await page.getByRole("textbox", { name: "Message" }).isDisabled()).toBe(true);
		expect(await page.getByRole("button", { name: "Send" }).isDisabled()).toBe(true);
		expect(await page.getByRole("button", { name: "New session", exact: true }).isDisabled()).toBe(true);
	});

	it("fits a phone's width (390×844) with no horizontal scrolling", async () => {
		const { loginUrl } = await startWebServer();
		const { page } = await loggedIn(loginUrl, { width: 390, height: 844 });
		harness.llm.enqueue(textReply(`A long line: ${"x".repeat(300)}\n\n\`\`\`\n${"y".repeat(300)}\n\`\`\``));
		await send(page, "a wide reply");
		await page.locator("#conversation .kind-assistant").waitFor();
		const widths = await page.evaluate(() => ({
			scroll: document.documentElement.scrollWidth,
			client: document.documentElement.clientWidth,
		}));
		expect(widths.scroll).toBeLessThanOrEqual(widths.client);
		await shot(page, "phone");
	});
});

/** A TCP relay to `target` whose connections the test can cut. */
async function startRelay(target: number): Promise<{ port: number; cut(): void; close(): Promise<void> }> {
	const sockets = new Set<Socket>();
	const server: Server = createServer((inbound) => {
		const outbound = connect(target, "127.0.0.1");
		for (const socket of [inbound, outbound]) {
			sockets.add(socket);
			socket.on("close", () => sockets.delete(socket));
			socket.on("error", () => socket.destroy());
		}
		inbound.pipe(outbound);
		outbound.pipe(inbound);
		inbound.on("close", () => outbound.destroy());
		outbound.on("close", () => inbound.destroy());
	});
	await new Promise<void>((resolveListen) => server.listen(0, "127.0.0.1", () => resolveListen()));
	const address = server.address();
	const port = typeof address === "object" && address ? address.port : 0;
	return {
		port,
		cut: () => {
			for (const socket of sockets) socket.destroy();
		},
		close: () =>
			new Promise<void>((resolveClose) => {
				for (const socket of sockets) socket.destroy();
				server.close(() => resolveClose());
			}),
	};
}
