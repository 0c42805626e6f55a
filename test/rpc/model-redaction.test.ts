import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectExitOnEof, expectResponsive } from "../support/responsive.js";
import { testProviders } from "../support/rpc-process.js";
import { startAgent, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

const SECRET = "s3cr3t-in-url";

/** The standard mock providers, reached through base URLs that carry a user name and password. */
function providersWithCredentials(): Record<string, unknown> {
	const standard = testProviders(harness.server) as Record<string, Record<string, unknown>>;
	const withUser = (provider: Record<string, unknown>) => ({
		...provider,
		baseUrl: String(provider.baseUrl).replace("http://", `http://agent:${SECRET}@`),
	});
	return { mock: withUser(standard.mock ?? {}), mockoai: withUser(standard.mockoai ?? {}) };
}

describe("a baseUrl with credentials", () => {
	it("is redacted in every model that leaves the process, and in error texts", async () => {
		const { agent, dirs } = await startAgent(harness.server, {
			providers: providersWithCredentials(),
			args: ["--model", "mock/mock-model"],
		});
		const state = (await agent.ok({ type: "get_state" })) as { model: { baseUrl: string } };
		expect(state.model.baseUrl).toMatch(/^http:\/\/\*\*\*:\*\*\*@127\.0\.0\.1:\d+/);
		expect(await agent.ok({ type: "set_model", provider: "mockoai", modelId: "mock-model" })).toMatchObject({
			baseUrl: expect.stringContaining("***:***@"),
		});
		await agent.ok({ type: "cycle_model" });
		await agent.ok({ type: "get_available_models" });
		// A request to such a URL fails; whatever its error says reaches the client without the secret.
		await agent.ok({ type: "set_model", provider: "mock", modelId: "mock-model" });
		const { start } = await agent.prompt("hello");
		const end = agent.since(start, "message_end").at(-1);
		expect(end?.message).toMatchObject({ stopReason: "error" });
		const exported = join(dirs.work, "session.html");
		await agent.ok({ type: "export_html", outputPath: exported });
		expect(agent.rawLines.filter((line) => line.includes(SECRET))).toEqual([]);
		expect(agent.stderr).not.toContain(SECRET);
		expect(readFileSync(exported, "utf8")).not.toContain(SECRET);
		await expectResponsive(agent);
		await expectExitOnEof(agent);
	});
});
