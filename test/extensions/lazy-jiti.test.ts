import { afterEach, describe, expect, it, vi } from "vitest";
import { fakeHost, scratchDir } from "./helpers.js";

const jitiLoads = vi.hoisted(() => ({ count: 0 }));

// Counts the loads of jiti (src/extensions/jiti.ts is the one place that requires it).
vi.mock("../../src/extensions/jiti.js", async (importOriginal) => {
	const real = await importOriginal<typeof import("../../src/extensions/jiti.js")>();
	return {
		jitiModule: () => {
			jitiLoads.count++;
			return real.jitiModule();
		},
	};
});

describe("jiti is loaded lazily", () => {
	const dirs: ReturnType<typeof scratchDir>[] = [];
	afterEach(() => {
		for (const dir of dirs.splice(0)) dir.remove();
	});

	it("is not loaded by importing the layer or by a start without extensions, and is loaded for one", async () => {
		const { loadExtensions } = await import("../../src/extensions/index.js");
		expect(jitiLoads.count).toBe(0);

		const agent = scratchDir();
		const project = scratchDir();
		dirs.push(agent, project);
		const options = { cwd: project.dir, agentDir: agent.dir, host: fakeHost(project.dir), onError: () => undefined };
		const empty = await loadExtensions(options);
		expect(empty.extensionPaths).toEqual([]);
		expect(jitiLoads.count).toBe(0);

		const file = agent.write("extensions/one.ts", "export default function () {}\n");
		const loaded = await loadExtensions(options);
		expect(loaded.extensionPaths).toEqual([file]);
		expect(jitiLoads.count).toBe(1);
	});
});
