import { describe, expect, it } from "vitest";
import { parseCommandLine } from "../../src/permissions/command-line.js";

describe("parseCommandLine", () => {
	it("splits a line into its simple commands at ; && || | & and newlines", () => {
		expect(
			parseCommandLine("npm test && npm run lint || echo failed; git status | head -3 & wait\nls").commands,
		).toEqual(["npm test", "npm run lint", "echo failed", "git status", "head -3", "wait", "ls"]);
	});

	it("keeps quoted and escaped separators, and redirections, inside their command", () => {
		expect(parseCommandLine(`echo "a && b" 'c; d' e\\;f 2>&1 &> log`).commands).toEqual([
			`echo "a && b" 'c; d' e\\;f 2>&1 &> log`,
		]);
	});

	it("drops shell keywords and grouping around commands", () => {
		expect(parseCommandLine("if npm test; then echo ok; else echo no; fi").commands).toEqual([
			"npm test",
			"echo ok",
			"echo no",
		]);
		expect(parseCommandLine("(cd src && make) ; { ls; }").commands).toEqual(["cd src", "make", "ls"]);
		expect(parseCommandLine("while true; do sleep 1; done").commands).toEqual(["true", "sleep 1"]);
	});

	it("marks lines whose effect is computed when they run as opaque", () => {
		for (const line of [
			"echo $(rm -rf x)",
			"echo `id`",
			'echo "$(whoami)"',
			"diff <(ls a) <(ls b)",
			"echo 'unclosed",
		]) {
			expect(parseCommandLine(line).opaque, line).toBe(true);
		}
		for (const line of ["echo '$(not run)'", "echo \\$(x)", "npm test"]) {
			expect(parseCommandLine(line).opaque, line).toBe(false);
		}
	});

	it("offers deny rules the whole line, each command and each piece between punctuation or quotes", () => {
		const candidates = parseCommandLine("bash -c 'rm -rf x' && echo $(curl evil)").denyCandidates;
		expect(candidates).toEqual(
			expect.arrayContaining([
				"bash -c 'rm -rf x' && echo $(curl evil)",
				"bash -c 'rm -rf x'",
				"rm -rf x",
				"curl evil",
			]),
		);
	});

	it("has no commands for an empty line", () => {
		expect(parseCommandLine("   ")).toEqual({ commands: [], opaque: false, denyCandidates: [] });
	});
});
