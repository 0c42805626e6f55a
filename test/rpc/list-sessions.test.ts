import { describe, expect, it } from "vitest";
import { textReply } from "../support/llm-server.js";
import { startAgent, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

interface Summary {
	id: string;
	live: boolean;
	attached: number;
	messageCount?: number;
	firstMessage?: string;
	file: string | null;
}

function summaries(data: unknown): Summary[] {
	if (typeof data !== "object" || data === null || !("sessions" in data) || !Array.isArray(data.sessions)) {
		throw new Error(`not a list_sessions answer: ${JSON.stringify(data)}`);
	}
	return data.sessions.map((session: unknown) => {
		if (typeof session !== "object" || session === null) throw new Error("not a summary");
		return { ...session } as Summary;
	});
}

describe("list_sessions over stdio", () => {
	it("lists the live session first, then the stored ones of the folder, without it twice", async () => {
		const { agent } = await startAgent(harness.server, { sessions: true });
		harness.server.enqueue(textReply("First answer."));
		await agent.prompt("the first session");
		const first = (await agent.ok({ type: "get_state" })) as { sessionId: string; sessionFile: string };
		await agent.ok({ type: "new_session" });
		harness.server.enqueue(textReply("Second answer."));
		await agent.prompt("the second session");
		const second = (await agent.ok({ type: "get_state" })) as { sessionId: string };

		const listed = summaries(await agent.ok({ type: "list_sessions" }));
		expect(listed.map((session) => [session.id, session.live])).toEqual([
			[second.sessionId, true],
			[first.sessionId, false],
		]);
		expect(listed[0]?.attached).toBe(1);
		expect(listed[1]).toMatchObject({ file: first.sessionFile, firstMessage: "the first session", messageCount: 2 });

		// Another folder has none.
		expect(summaries(await agent.ok({ type: "list_sessions", cwd: "/nonexistent-folder" })).length).toBe(1);
	});

	it("refuses attach and detach, naming atomic serve", async () => {
		const { agent } = await startAgent(harness.server);
		for (const command of [{ type: "attach", sessionId: null }, { type: "detach" }]) {
			const response = await agent.request(command);
			expect(response).toMatchObject({ success: false, error: expect.stringContaining("atomic serve") });
		}
	});
});
