import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hostAllowed } from "../../src/sandbox/host-patterns.js";
import { realPath } from "../../src/sandbox/real-path.js";
import { effectiveSandboxSettings, stricterNetwork } from "../../src/sandbox/settings.js";

describe("sandbox settings", () => {
	it("takes the flag over the user's mode, and the project's only when stricter", () => {
		expect(effectiveSandboxSettings({}).mode).toBe("off");
		expect(effectiveSandboxSettings({ user: { mode: "read-only" }, flagMode: "workspace-write" }).mode).toBe(
			"workspace-write",
		);
		const project = { source: "p.json", block: { mode: "workspace-write" as const } };
		expect(effectiveSandboxSettings({ user: { mode: "off" }, project })).toMatchObject({
			mode: "workspace-write",
			floor: "workspace-write",
			floorSource: "p.json",
		});
		expect(effectiveSandboxSettings({ user: { mode: "read-only" }, project }).mode).toBe("read-only");
	});

	it("narrows the network, adds hidden paths, lowers limits, and ignores a project's writable roots", () => {
		const settings = effectiveSandboxSettings({
			user: { network: ["a.com", "b.com"], denyRead: ["~/x"], limits: { memoryMb: 500, processes: 10 } },
			project: {
				source: "p.json",
				block: { network: ["b.com", "c.com"], denyRead: ["~/y"], limits: { memoryMb: 100 }, writableRoots: ["/"] },
			},
		});
		expect(settings.network).toEqual(["b.com"]);
		expect(settings.denyRead).toEqual(["~/x", "~/y"]);
		expect(settings.limits).toEqual({ memoryMb: 100, processes: 10 });
		expect(settings.writableRoots).toEqual([]);
		expect(settings.warnings.join()).toContain("writableRoots is ignored");
		expect(stricterNetwork("on", "off")).toBe("off");
		expect(stricterNetwork("on", ["a.com"])).toEqual(["a.com"]);
		expect(stricterNetwork(["a.com"], ["b.com"])).toBe("off");
	});

	it("matches hosts exactly, *.domain for subdomains only, case-insensitively", () => {
		expect(hostAllowed("registry.npmjs.org", ["registry.npmjs.org"])).toBe(true);
		expect(hostAllowed("REGISTRY.npmjs.org.", ["registry.npmjs.org"])).toBe(true);
		expect(hostAllowed("evil-registry.npmjs.org", ["registry.npmjs.org"])).toBe(false);
		expect(hostAllowed("a.b.example.com", ["*.example.com"])).toBe(true);
		expect(hostAllowed("example.com", ["*.example.com"])).toBe(false);
		expect(hostAllowed("notexample.com", ["*.example.com"])).toBe(false);
		expect(hostAllowed("anything", ["*"])).toBe(true);
		expect(hostAllowed("", ["*"])).toBe(false);
	});
});

describe("realPath", () => {
	const root = mkdtempSync(join(tmpdir(), "atomic-realpath-"));
	afterAll(() => rmSync(root, { recursive: true, force: true }));

	it("resolves links and .. also where nothing exists yet, and through a dangling link", () => {
		symlinkSync(join(root, "target-dir"), join(root, "dangling"));
		expect(realPath(join(root, "dangling"))).toBe(join(root, "target-dir"));
		expect(realPath(join(root, "missing", "..", "file"))).toBe(join(root, "file"));
		symlinkSync(join(root, "loop-a"), join(root, "loop-b"));
		symlinkSync(join(root, "loop-b"), join(root, "loop-a"));
		expect(() => realPath(join(root, "loop-a"))).toThrow("Too many symbolic links");
	});
});
