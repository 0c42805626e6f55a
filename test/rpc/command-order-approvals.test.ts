import { describe, expect, it } from "vitest";
import { CommandOrder, isImmediate } from "../../src/rpc/command-order.js";

describe("tool approval commands in the command stream", () => {
	it("an answer overtakes ordered work that holds the order; set_approval_mode waits its turn", async () => {
		expect(isImmediate("tool_approval_response")).toBe(true);
		expect(isImmediate("set_approval_mode")).toBe(false);
		const order = new CommandOrder();
		const started: string[] = [];
		let release: () => void = () => undefined;
		const held = new Promise<void>((resolve) => (release = resolve));
		const schedule = (type: string, work: () => Promise<void> = async () => undefined) => {
			const run = async () => {
				started.push(type);
				await work();
			};
			// What RpcServer does: immediate commands run at once, the rest take the order.
			return isImmediate(type) ? run() : order.schedule(run);
		};
		const done = [schedule("compact", () => held), schedule("set_approval_mode"), schedule("tool_approval_response")];
		expect(started).toEqual(["compact", "tool_approval_response"]);
		release();
		await Promise.all(done);
		expect(started).toEqual(["compact", "tool_approval_response", "set_approval_mode"]);
	});
});
