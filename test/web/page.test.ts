import { expect, it } from "vitest";
import { textReply, toolReply } from "../support/llm-server.js";
import { describeWithBrowser } from "./browser.js";
import {
	anotherTab,
	DIALOGS,
	loggedIn,
	newContext,
	occurrences,
	send,
	shot,
	startRelay,
	startWebServer,
	useWebHarness,
} from "./support.js";

const harness = useWebHarness();

describeWithBrowser("the web page of atomic serve", () => {
	it("logs in with the printed link, streams a reply and shows a tool call with its output", async () => {
		const { loginUrl, origin } = await startWebServer();
		const { page, context } = await loggedIn(loginUrl);
		const address = new URL(page.url());
		expect(`${address.origin}${address.pathname}`).toBe(`${origin}/`);
		const cookies = await context.cookies();
		expect(cookies.find((cookie) => cookie.name === `atomic_token_${address.port}`)).toMatchObject({
			httpOnly: true,
			sameSite: "Strict",
		});

		harness.llm.enqueue(
			toolReply("bash", { command: "echo from-the-tool" }),
			textReply("The tool said **from-the-tool**.\n\n```js\nconst answer = 42;\n```"),
		);
		await send(page, "run the tool");
		const conversation = page.locator("#conversation");
		await conversation.locator("strong", { hasText: "from-the-tool" }).waitFor();
		await expect.poll(() => conversation.locator(".kind-tool-result").count()).toBe(1);
		expect(await conversation.locator(".kind-tool-result").textContent()).toContain("from-the-tool");
		expect(await conversation.locator("pre code.hljs").count()).toBeGreaterThan(0);
		await expect.poll(() => page.getByRole("button", { name: "Stop" }).isDisabled()).toBe(true);
		// The session's usage so far.
		await expect.poll(() => page.locator("#usage").textContent()).toMatch(/\d+ tokens/);
		await shot(page, "conversation");
		await page.emulateMedia({ colorScheme: "dark" });
		await shot(page, "conversation-dark");
	});

	it("shows an approval in two pages; answered in one, it leaves the other at once", async () => {
		const { loginUrl, origin } = await startWebServer({ settings: { permissions: { mode: "ask" } } });
		const { page: first, context } = await loggedIn(loginUrl);
		const second = await anotherTab(context, origin);

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
		const { page } = await loggedIn(loginUrl, { via: relay.port });

		const pieces = Array.from({ length: 30 }, (_value, index) => `word${index} `);
		harness.llm.enqueue({ blocks: [{ type: "text", text: pieces.join(""), chunks: pieces }], delayMs: 40 });
		await send(page, "a slow reply");
		await page.locator("#conversation").getByText("word3", { exact: false }).first().waitFor();
		relay.cut();
		await page.locator("#status").getByText("Reconnecting…").waitFor();
		await page.locator("#conversation .kind-assistant:not(.streaming)").getByText("word29", { exact: false }).waitFor();
		await expect.poll(() => page.locator("#status").textContent()).toBe("");
		expect(await occurrences(page, "word17 ")).toBe(1);
		expect(await occurrences(page, "a slow reply")).toBe(1);
		expect(await page.locator("#conversation").textContent()).toContain(pieces.join("").trim());
	});

	it("shows an observer everything, approvals included, and lets it change nothing", async () => {
		const { loginUrl, origin, observer } = await startWebServer({ settings: { permissions: { mode: "ask" } } });
		const { page: controller } = await loggedIn(loginUrl);
		harness.llm.enqueue(textReply("Hello, **observer**."));
		await send(controller, "first");
		await controller.locator("#conversation strong", { hasText: "observer" }).waitFor();

		const context = await newContext();
		const page = await context.newPage();
		await page.goto(`${origin}/login`);
		await page.locator('input[name="token"]').fill(observer);
		await page.getByRole("button", { name: "Log in" }).click();
		await page.getByText("Read-only: this login is an observer's.").waitFor();
		await page.locator("#conversation strong", { hasText: "observer" }).waitFor();
		for (const name of ["Send", "New session", "Rename", "Fork…"]) {
			expect(await page.getByRole("button", { name, exact: true }).isDisabled()).toBe(true);
		}
		expect(await page.getByRole("textbox", { name: "Message" }).isDisabled()).toBe(true);
		expect(await page.locator("#model").isDisabled()).toBe(true);

		harness.llm.enqueue(toolReply("bash", { command: "echo watched" }), textReply("done"));
		await send(controller, "run it");
		const dialog = page.getByRole("dialog");
		await dialog.getByText("Waiting for a controller to answer.").waitFor();
		expect(await dialog.getByRole("button").count()).toBe(0);
		await controller.getByRole("dialog").getByRole("button", { name: "Deny" }).click();
		await dialog.waitFor({ state: "detached" });
	});

	it("sends with Enter, adds a line with Shift+Enter, queues while it works, and stops with Escape", async () => {
		const { loginUrl } = await startWebServer();
		const { page } = await loggedIn(loginUrl);
		const box = page.getByRole("textbox", { name: "Message" });
		await box.fill("one");
		await box.press("Shift+Enter");
		await box.pressSequentially("two");
		expect(await box.inputValue()).toBe("one\ntwo");

		const pieces = Array.from({ length: 200 }, (_value, index) => `tick${index} `);
		harness.llm.enqueue({ blocks: [{ type: "text", text: pieces.join(""), chunks: pieces }], delayMs: 50 });
		await box.press("Enter");
		await page.locator("#conversation").getByText("tick2", { exact: false }).first().waitFor();
		expect(await box.inputValue()).toBe("");
		// While it works the message is queued, as a follow-up when picked so.
		await page.getByRole("radio", { name: "Follow-up" }).check();
		await send(page, "after that");
		await page.locator("#queue").getByText("follow-up: after that").waitFor();
		await page.getByRole("button", { name: "Clear queue" }).click();
		await page.locator("#queue").waitFor({ state: "hidden" });

		await page.locator("body").press("Escape");
		await page.locator("#conversation .kind-assistant.error").getByText("Aborted").waitFor();
		await expect.poll(() => page.getByRole("button", { name: "Stop" }).isDisabled()).toBe(true);
	});

	it("logs out: the page is left for the login form", async () => {
		const { loginUrl } = await startWebServer();
		const { page } = await loggedIn(loginUrl);
		await page.getByRole("button", { name: "Log out" }).click();
		await page.waitForURL((url) => url.pathname === "/login");
		await page.goto(new URL("/", page.url()).href);
		await page.locator("#status").getByText("Not logged in").waitFor();
	});

	it("ends with a login prompt when its token is revoked", async () => {
		const { loginUrl, tokens } = await startWebServer();
		const { page } = await loggedIn(loginUrl);
		const name = tokens.list().find((token) => token.name.startsWith("web-"))?.name;
		if (!name) throw new Error("the login link made no token");
		tokens.revoke(name);
		await page.locator("#status").getByText("Not logged in").waitFor();
		await page.getByText("This login was revoked.").waitFor();
	});

	it("fits a phone's width (390×844) with no horizontal scrolling", async () => {
		const { loginUrl } = await startWebServer();
		const { page } = await loggedIn(loginUrl, { viewport: { width: 390, height: 844 } });
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
