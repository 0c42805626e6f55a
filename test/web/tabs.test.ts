/**
 * The web page across tabs and reconnects: a tab opened late gets what is open, one answer
 * closes a dialog everywhere, and a page that missed events (a replay, or a resync when they are
 * no longer held) shows the session as it is, each message once.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { textReply, toolReply } from "../support/llm-server.js";
import { describeWithBrowser } from "./browser.js";
import {
	anotherTab,
	DIALOGS,
	loaded,
	loggedIn,
	occurrences,
	send,
	startRelay,
	startWebServer,
	useWebHarness,
} from "./support.js";

const harness = useWebHarness();
const ASK = { permissions: { mode: "ask" } };

/** A text reply streamed slowly, in `count` words `<stem>0 ` … */
function slowReply(stem: string, count: number, delayMs = 40) {
	const pieces = Array.from({ length: count }, (_value, index) => `${stem}${index} `);
	return {
		text: pieces.join("").trim(),
		reply: { blocks: [{ type: "text" as const, text: pieces.join(""), chunks: pieces }], delayMs },
	};
}

describeWithBrowser("the web page across tabs and reconnects", () => {
	it("shows an approval that was already open to a tab opened later; answered there, it closes in the first", async () => {
		const { loginUrl, origin } = await startWebServer({ settings: ASK });
		const { page: first, context } = await loggedIn(loginUrl);
		harness.llm.enqueue(toolReply("bash", { command: "echo late" }), textReply("finished"));
		await send(first, "run it");
		await first.getByRole("dialog").waitFor();

		const second = await anotherTab(context, origin);
		const dialog = second.getByRole("dialog");
		await dialog.getByText("echo late", { exact: false }).waitFor();
		await dialog.getByRole("button", { name: "Allow", exact: true }).click();
		await first.getByRole("dialog").waitFor({ state: "detached" });
		await dialog.waitFor({ state: "detached" });
		for (const page of [first, second]) {
			await page.locator("#conversation").getByText("finished", { exact: true }).waitFor();
			expect(await occurrences(page, "run it")).toBe(1);
		}
	});

	it("shows a tab opened in the middle of a reply the reply so far at once, then the rest, and the whole reply once", async () => {
		const { loginUrl, origin } = await startWebServer();
		const { page: first, context } = await loggedIn(loginUrl);
		const { text, reply } = slowReply("late", 40, 5);
		// The reply stops after its first pieces until the second tab shows them.
		let release: () => void = () => undefined;
		const until = new Promise<void>((resolve) => {
			release = resolve;
		});
		harness.llm.enqueue({ ...reply, holdAfter: { frames: 12, until } });
		try {
			await send(first, "a slow reply");
			await first.locator("#conversation").getByText("late5", { exact: false }).first().waitFor();

			const second = await anotherTab(context, origin);
			const streaming = second.locator("#conversation .streaming");
			await streaming.getByText("late0 late1 late2", { exact: false }).waitFor();
			expect(await second.getByText("began before the page attached", { exact: false }).count()).toBe(0);
			release();
			const done = second.locator("#conversation .kind-assistant:not(.streaming)");
			await done.getByText("late39", { exact: false }).waitFor();
			await expect.poll(() => second.locator("#conversation .streaming").count()).toBe(0);
			await loaded(second);
			expect(await occurrences(second, "late7 ")).toBe(1);
			expect(await occurrences(second, "late17 ")).toBe(1);
			expect(await occurrences(second, "a slow reply")).toBe(1);
			expect(await second.locator("#conversation").textContent()).toContain(text);
		} finally {
			release();
		}
	});

	it("shows a tool that was already running to a tab opened later, its output as it comes, and its result once", async () => {
		const { loginUrl, origin, dirs } = await startWebServer();
		const { page: first, context } = await loggedIn(loginUrl);
		// The command prints until the test lets it end.
		const command = "n=0; while [ ! -f release ]; do n=$((n+1)); echo tick$n; sleep 0.1; done; echo released";
		harness.llm.enqueue(toolReply("bash", { command }), textReply("the loop ended"));
		await send(first, "loop");
		await first.locator("#conversation .kind-tool-live").getByText("tick2", { exact: false }).waitFor();

		const second = await anotherTab(context, origin);
		const running = second.locator("#conversation .kind-tool-live");
		await running.getByText("Running: bash").waitFor();
		// Its output goes on in the new tab.
		const output = running.locator(".live-output");
		const seen = Number(/tick(\d+)\s*$/.exec((await output.textContent()) ?? "")?.[1] ?? 0);
		await expect.poll(async () => (await output.textContent())?.includes(`tick${seen + 3}\n`)).toBe(true);
		writeFileSync(join(dirs.work, "release"), "");
		await second.locator("#conversation").getByText("the loop ended", { exact: true }).waitFor();
		await running.waitFor({ state: "detached" });
		expect(await second.locator("#conversation .kind-tool-result").count()).toBe(1);
		expect(await second.locator("#conversation .kind-tool-result").textContent()).toContain("released");
	});

	it("closes an extension's dialog in every tab once one answered it", async () => {
		const { loginUrl, origin } = await startWebServer({ extensions: [DIALOGS] });
		const { page: first, context } = await loggedIn(loginUrl);
		const second = await anotherTab(context, origin);
		await send(first, "/ask");
		await first.getByRole("dialog").getByText("Proceed?").waitFor();
		await second.getByRole("dialog").getByText("Proceed?").waitFor();
		await second.getByRole("dialog").getByRole("button", { name: "No" }).click();
		await first.getByRole("dialog").waitFor({ state: "detached" });
		await second.getByRole("dialog").waitFor({ state: "detached" });
		await first.locator("#toasts").getByText("ask confirmed=false").waitFor();
	});

	it("after a resync (the missed events no longer held) shows the session as it is, each message once, and what waits", async () => {
		// The server keeps only a few events, so a page that was away for a whole reply cannot be replayed to.
		const { port, loginUrl, origin } = await startWebServer({
			settings: ASK,
			replayLimits: { events: 4, bytes: 64 * 1024 * 1024 },
		});
		const relay = await startRelay(port);
		const { page: away, context } = await loggedIn(loginUrl, { via: relay.port });
		const here = await anotherTab(context, origin);

		const { text, reply } = slowReply("gone", 30);
		harness.llm.enqueue(reply);
		await send(here, "the first");
		await away.locator("#conversation").getByText("gone3", { exact: false }).first().waitFor();
		relay.refuse(true);
		relay.cut();
		await away.locator("#status").getByText("Reconnecting…").waitFor();
		// Meanwhile the reply ends and another prompt waits for an approval.
		await here.locator("#conversation .kind-assistant:not(.streaming)").getByText("gone29", { exact: false }).waitFor();
		harness.llm.enqueue(toolReply("bash", { command: "echo resynced" }), textReply("all done"));
		await send(here, "the second");
		await here.getByRole("dialog").waitFor();

		relay.refuse(false);
		await away.locator("#conversation").getByText("Reconnected after missing some events", { exact: false }).waitFor();
		await expect.poll(() => away.locator("#status").textContent()).toBe("");
		const dialog = away.getByRole("dialog");
		await dialog.getByText("echo resynced", { exact: false }).waitFor();
		expect(await occurrences(away, "gone17 ")).toBe(1);
		expect(await occurrences(away, "the first")).toBe(1);
		expect(await occurrences(away, "the second")).toBe(1);
		expect(await away.locator("#conversation").textContent()).toContain(text);

		await dialog.getByRole("button", { name: "Allow", exact: true }).click();
		await here.getByRole("dialog").waitFor({ state: "detached" });
		await away.locator("#conversation").getByText("all done", { exact: true }).waitFor();
		expect(await occurrences(away, "all done")).toBe(1);
	});

	it("comes back after the server restarts, with the stored session as it was", async () => {
		const first = await startWebServer({ store: true });
		const relay = await startRelay(first.port);
		const { page } = await loggedIn(first.loginUrl, { via: relay.port });
		harness.llm.enqueue(textReply("said in the first life"));
		await send(page, "before the restart");
		await page.locator("#conversation").getByText("said in the first life", { exact: true }).waitFor();

		await first.close();
		await page.locator("#status").getByText("Reconnecting…").waitFor();
		// The login (a stored token) and the session (a file) outlive the server.
		const second = await startWebServer({ store: true, dirs: first.dirs });
		relay.retarget(second.port);
		await expect.poll(() => page.locator("#status").textContent(), { timeout: 20_000 }).toBe("");

		harness.llm.enqueue(textReply("said in the second life"));
		await send(page, "after the restart");
		await page.locator("#conversation").getByText("said in the second life", { exact: true }).waitFor();
		expect(await occurrences(page, "said in the first life")).toBe(1);
		expect(await occurrences(page, "before the restart")).toBe(1);
		// The model read the whole conversation: the session went on where it was.
		const request = JSON.stringify(harness.llm.requests.at(-1));
		expect(request).toContain("before the restart");
	});

	it("follows a model, a name and a fork chosen in another tab", async () => {
		const { loginUrl, origin } = await startWebServer();
		const { page: first, context } = await loggedIn(loginUrl);
		const second = await anotherTab(context, origin);

		await first.locator("#model").selectOption("mock/mock-reasoner");
		await expect.poll(() => second.locator("#model").inputValue()).toBe("mock/mock-reasoner");
		await expect.poll(() => second.locator("#thinking option").count()).toBeGreaterThan(1);

		await first.getByRole("button", { name: "Rename" }).click();
		const rename = first.getByRole("dialog");
		await rename.getByRole("textbox").fill("Tidy the parser");
		await rename.getByRole("button", { name: "OK" }).click();
		await second.getByRole("heading", { name: "Tidy the parser" }).waitFor();

		harness.llm.enqueue(textReply("one done"), textReply("two done"));
		await send(first, "step one");
		await first.locator("#conversation").getByText("one done", { exact: true }).waitFor();
		await send(first, "step two");
		await second.locator("#conversation").getByText("two done", { exact: true }).waitFor();

		await first.getByRole("button", { name: "Fork…" }).click();
		await first.getByRole("dialog").getByRole("button", { name: "2. step two" }).click();
		// The fork holds what came before "step two", which is offered again in the box.
		await expect.poll(() => first.getByRole("textbox", { name: "Message" }).inputValue()).toBe("step two");
		for (const page of [first, second]) {
			await expect
				.poll(async () => [await occurrences(page, "one done"), await occurrences(page, "two done")])
				.toEqual([1, 0]);
		}
	});

	it("brings a tab that was away while another tab forked back to the fork", async () => {
		// Stored: the session before the fork could be opened again from its file, and must not be.
		const { port, loginUrl, origin } = await startWebServer({ store: true });
		const relay = await startRelay(port);
		const { page: away, context } = await loggedIn(loginUrl, { via: relay.port });
		const here = await anotherTab(context, origin);
		harness.llm.enqueue(textReply("one done"), textReply("two done"), textReply("three done"));
		await send(here, "step one");
		await here.locator("#conversation").getByText("one done", { exact: true }).waitFor();
		await send(here, "step two");
		await away.locator("#conversation").getByText("two done", { exact: true }).waitFor();

		relay.refuse(true);
		relay.cut();
		await away.locator("#status").getByText("Reconnecting…").waitFor();
		await here.getByRole("button", { name: "Fork…" }).click();
		await here.getByRole("dialog").getByRole("button", { name: "2. step two" }).click();
		await expect.poll(() => occurrences(here, "two done")).toBe(0);

		relay.refuse(false);
		await expect.poll(() => away.locator("#status").textContent()).toBe("");
		await expect
			.poll(async () => [await occurrences(away, "one done"), await occurrences(away, "two done")])
			.toEqual([1, 0]);
		expect(new URL(away.url()).hash).toBe(new URL(here.url()).hash);
		// It goes on with the fork: what is said there shows in both.
		await send(here, "step three");
		await away.locator("#conversation").getByText("three done", { exact: true }).waitFor();
	});
});
