import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { readModelsJson } from "../../src/llm/models-json.js";
import { loadContextFiles } from "../../src/resources/context-files.js";
import type { ResourceDiagnostic } from "../../src/resources/frontmatter.js";
import { readMarkdownResource } from "../../src/resources/frontmatter.js";
import { SettingsStore } from "../../src/resources/settings.js";

let root: string;

beforeEach(() => {
	root = mkdtempSync(join(tmpdir(), "atomic-resources-special-"));
});

afterEach(() => {
	vi.restoreAllMocks();
	rmSync(root, { recursive: true, force: true });
});

function fifo(path: string): string {
	execFileSync("mkfifo", [path]);
	return path;
}

describe("configuration and resource files that are FIFOs are refused, not waited on", () => {
	it("settings.json", () => {
		const agentDir = join(root, "agent");
		mkdirSync(agentDir);
		const path = fifo(join(agentDir, "settings.json"));
		const store = new SettingsStore(agentDir, root);
		expect(store.errors).toEqual([`${path}: cannot be read (${path} is a FIFO (named pipe), not a regular file)`]);
		expect(store.get()).toEqual({});
	});

	it("models.json", () => {
		const path = fifo(join(root, "models.json"));
		expect(readModelsJson(path).errors).toEqual([
			`${path}: cannot read (${path} is a FIFO (named pipe), not a regular file)`,
		]);
	});

	it("AGENTS.md (skipped with a warning)", () => {
		const agentDir = join(root, "agent");
		mkdirSync(agentDir);
		const path = fifo(join(root, "AGENTS.md"));
		writeFileSync(join(agentDir, "AGENTS.md"), "global rules");
		const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
		const files = loadContextFiles(agentDir, root);
		expect(files.map((file) => file.content)).toEqual(["global rules"]);
		expect(stderr).toHaveBeenCalledWith(
			`Warning: cannot read ${path}: ${path} is a FIFO (named pipe), not a regular file\n`,
		);
	});

	it("a skill or prompt template", async () => {
		const path = fifo(join(root, "SKILL.md"));
		const diagnostics: ResourceDiagnostic[] = [];
		expect(await readMarkdownResource(path, diagnostics)).toBeUndefined();
		expect(diagnostics).toEqual([
			{ path, message: `cannot read file: ${path} is a FIFO (named pipe), not a regular file` },
		]);
	});
});
