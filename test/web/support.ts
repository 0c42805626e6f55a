/**
 * Pieces of the web page's tests: a server with the built page (dist/web: `npm run build` first),
 * logged-in pages in one headless Chromium per test file, and a relay whose connections a test can
 * cut to see the page come back.
 */
import { existsSync, mkdirSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { join, resolve } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll } from "vitest";
import { cleanups, type ServerOptions, startServer, useServeHarness } from "../server/harness.js";
import { launchBrowser } from "./browser.js";

export const WEB_ROOT = resolve("dist/web");
const SHOTS = process.env.ATOMIC_WEB_SCREENSHOTS;
/** Extension dialogs: `/ask` waits on a confirm, `/pair` on two inputs. */
export const DIALOGS = join(import.meta.dirname, "../rpc/fixtures/extensions/dialogs.ts");

let browser: Browser | undefined;

/**
 * The harness of a test file of the page: the loopback model server (useServeHarness) and one
 * browser, closed after the file (files can share a worker and its modules, so each registers its own).
 */
export function useWebHarness(): ReturnType<typeof useServeHarness> {
	const harness = useServeHarness();
	afterAll(async () => {
		await browser?.close();
		browser = undefined;
	});
	return harness;
}

/** A server with the built page, its one-time login URL, and an observer token. */
export async function startWebServer(options: Omit<ServerOptions, "webRoot"> = {}) {
	if (!existsSync(join(WEB_ROOT, "app.js"))) throw new Error(`${WEB_ROOT} is not built: run npm run build first`);
	const started = await startServer({ ...options, webRoot: WEB_ROOT });
	if (!started.loginUrl) throw new Error(`no login URL in ${started.lines.join("\n")}`);
	return { ...started, loginUrl: started.loginUrl };
}

/** A browser context (its own cookies), closed after the test. */
export async function newContext(viewport = { width: 1280, height: 800 }): Promise<BrowserContext> {
	if (!browser?.isConnected()) browser = await launchBrowser();
	const context = await browser.newContext({ viewport });
	cleanups.push(() => context.close());
	return context;
}

/** Waits until the page shows the session list with its attached session in it, and its conversation. */
export async function attached(page: Page): Promise<void> {
	await page.getByRole("list", { name: "Sessions" }).locator('button[aria-current="true"]').waitFor();
	await loaded(page);
}

/** Waits until the page holds the conversation of its session (it is busy loading it after an attach). */
export async function loaded(page: Page): Promise<void> {
	await page.locator('#conversation[aria-busy="false"]').waitFor({ state: "attached" });
}

/** A page logged in through the printed one-time URL (optionally through another host:port, a relay). */
export async function loggedIn(
	loginUrl: string,
	options: { viewport?: { width: number; height: number }; via?: number } = {},
): Promise<{ page: Page; context: BrowserContext }> {
	const context = await newContext(options.viewport);
	const page = await context.newPage();
	const url = new URL(loginUrl);
	if (options.via !== undefined) url.port = String(options.via);
	await page.goto(url.href);
	await attached(page);
	return { page, context };
}

/**
 * Another tab of a logged-in context, on `origin`. The login cookie is per port (the server's
 * tokenCookie): a context that logged in through another port of the host (a relay's) gets the
 * same token under this port's name, as logging in there would give it.
 */
export async function anotherTab(context: BrowserContext, origin: string): Promise<Page> {
	const name = `atomic_token_${new URL(origin).port}`;
	const cookies = await context.cookies();
	const login = cookies.find((cookie) => cookie.name.startsWith("atomic_token_"));
	if (login && !cookies.some((cookie) => cookie.name === name)) {
		const { value, domain, path, expires, httpOnly, secure, sameSite } = login;
		await context.addCookies([{ name, value, domain, path, expires, httpOnly, secure, sameSite }]);
	}
	const page = await context.newPage();
	await page.goto(`${origin}/`);
	await attached(page);
	return page;
}

export async function shot(page: Page, name: string): Promise<void> {
	if (!SHOTS) return;
	mkdirSync(SHOTS, { recursive: true });
	await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

/** Types a message and presses Enter. */
export async function send(page: Page, text: string): Promise<void> {
	const box = page.getByRole("textbox", { name: "Message" });
	await box.fill(text);
	await box.press("Enter");
}

/** How many times `text` occurs in the conversation's text. */
export async function occurrences(page: Page, text: string): Promise<number> {
	const all = (await page.locator("#conversation").textContent()) ?? "";
	return all.split(text).length - 1;
}

/**
 * A TCP relay to the port `target`: `cut()` drops its connections; `refuse(true)` drops new ones
 * too, until `refuse(false)`; `retarget(port)` sends new ones to another port (a restarted server).
 */
export async function startRelay(target: number) {
	const sockets = new Set<Socket>();
	let refusing = false;
	const server: Server = createServer((inbound) => {
		if (refusing) {
			inbound.destroy();
			return;
		}
		const outbound = connect(relay.target, "127.0.0.1");
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
	const relay = {
		port,
		target,
		retarget(next: number): void {
			relay.target = next;
		},
		cut(): void {
			for (const socket of sockets) socket.destroy();
		},
		refuse(on: boolean): void {
			refusing = on;
		},
		close: () =>
			new Promise<void>((resolveClose) => {
				relay.cut();
				server.close(() => resolveClose());
			}),
	};
	cleanups.push(() => relay.close());
	return relay;
}
