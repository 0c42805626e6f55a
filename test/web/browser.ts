/**
 * The browser of the web page's tests: Debian's Chromium driven by playwright-core. Without it the
 * tests are skipped loudly, and they fail in CI (ATOMIC_REQUIRE_SYSTEM_TOOLS=1, .ci/run installs it).
 */
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { describe, it } from "vitest";

export const CHROMIUM = process.env.ATOMIC_CHROMIUM ?? "/usr/bin/chromium";

/** `describe` that needs Chromium. */
export function describeWithBrowser(name: string, body: () => void): void {
	if (existsSync(CHROMIUM)) {
		describe(name, body);
		return;
	}
	if (process.env.ATOMIC_REQUIRE_SYSTEM_TOOLS === "1") {
		describe(name, () => {
			it("needs Chromium", () => {
				throw new Error(`${CHROMIUM} is missing: CI installs Debian's chromium (.ci/run)`);
			});
		});
		return;
	}
	console.warn(
		`SKIPPED "${name}": no browser at ${CHROMIUM}; install Debian's chromium to run the web page's tests (in CI this fails)`,
	);
	describe.skip(name, body);
}

/** A headless Chromium that reaches only what the test serves on loopback. */
export function launchBrowser(): Promise<Browser> {
	return chromium.launch({
		executablePath: CHROMIUM,
		args: [
			"--headless",
			"--no-sandbox",
			"--disable-gpu",
			"--disable-quic",
			"--no-first-run",
			"--disable-background-networking",
			"--disable-component-update",
			"--disable-sync",
		],
	});
}
