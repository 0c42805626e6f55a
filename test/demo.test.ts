import { execFile } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);

describe("npm run demo", () => {
	it("runs a scripted session offline: bash, read, a streamed answer, stats and an HTML export", async () => {
		const { stdout } = await run(process.execPath, ["scripts/run-ts.mjs", "demo/demo.ts"], {
			env: { ...process.env, NO_COLOR: "1", ANTHROPIC_API_KEY: "" },
			timeout: 60_000,
		});
		expect(stdout).toMatch(/^Atomic \d+\.\d+\.\d+ \(pid \d+, offline demo in /);
		expect(stdout).toContain('▸ bash {"command":"ls -1 && cat package.json"}');
		expect(stdout).toContain("  │ TODO.md");
		expect(stdout).toContain('▸ read {"path":"TODO.md"}');
		expect(stdout).toContain("  │ - [ ] Add a test");
		// The last answer is written from the tool results the agent sent back to the model.
		expect(stdout).toContain(
			"TODO.md has 3 open items (1 done):\n\n- Read the name from argv\n- Add a test\n- Publish 0.2.0",
		);
		expect(stdout).toMatch(/session 6 messages, 2 tool calls, \d+ input \/ \d+ output tokens, \$0\.\d{4}/);
		expect(stdout).toContain("model   3 requests, 6 messages this run");
		expect(stdout).not.toContain("\u001b[");
		const html = /export {2}(\S+\.html)/.exec(stdout)?.[1];
		expect(html && existsSync(html)).toBe(true);
		expect(readFileSync(html as string, "utf8")).toContain("Read the name from argv");
		const root = /offline demo in (\S+)\)/.exec(stdout)?.[1];
		if (root?.includes("atomic-demo-")) rmSync(root, { recursive: true, force: true });
	});
});
