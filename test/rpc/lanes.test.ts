import { describe, expect, it } from "vitest";
import { Lanes } from "../../src/rpc/lanes.js";
import type { Command } from "../../src/rpc/protocol/commands.js";

describe("Lanes", () => {
	it("runs tool_approval_response at once, even behind an ordered command that has not finished", async () => {
		const started: string[] = [];
		let release: () => void = () => undefined;
		const held = new Promise<void>((resolve) => (release = resolve));
		const lanes = new Lanes(async (command) => {
			started.push(command.type);
			if (command.type === "get_commands") await held;
		});
		const commands: Command[] = [
			{ type: "get_commands" },
			{ type: "set_session_name", name: "n" },
			{ type: "tool_approval_response", requestId: "r", decision: "allow" },
			{ type: "set_approval_mode", mode: "ask" },
		];
		const done = commands.map((command) => lanes.schedule(command));
		expect(started).toEqual(["get_commands", "tool_approval_response"]);
		release();
		await Promise.all(done);
		expect(started).toEqual(["get_commands", "tool_approval_response", "set_session_name", "set_approval_mode"]);
	});
});
