import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileGlob, escapeGlob, matchGlob } from "../../src/permissions/glob.js";

const command = (pattern: string, subject: string) => matchGlob(compileGlob(pattern, false), subject);
const path = (pattern: string, subject: string) => matchGlob(compileGlob(pattern, true), subject);

/** The same semantics as a regular expression (only for short test inputs). */
function reference(pattern: string, paths: boolean): RegExp {
	let source = "";
	for (let index = 0; index < pattern.length; index++) {
		const char = pattern[index] as string;
		if (char === "\\" && index + 1 < pattern.length) {
			index++;
			source += (pattern[index] as string).replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
		} else if (char === "?") source += paths ? "[^/]" : "[\\s\\S]";
		else if (char !== "*") source += char.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
		else if (pattern[index + 1] !== "*") source += paths ? "[^/]*" : "[\\s\\S]*";
		else {
			const segmentStart = index === 0 || pattern[index - 1] === "/";
			while (pattern[index + 1] === "*") index++;
			if (paths && segmentStart && pattern[index + 1] === "/") {
				index++;
				source += "(?:[^/][\\s\\S]*/)?";
			} else source += "[\\s\\S]*";
		}
	}
	return new RegExp(`^${source}$`);
}

describe("globs over command lines", () => {
	it("* matches any run, slashes and spaces included; ? one character", () => {
		expect(command("npm test*", "npm test")).toBe(true);
		expect(command("npm test*", "npm test -- --watch src/a.ts")).toBe(true);
		expect(command("npm test*", "npm run test")).toBe(false);
		expect(command("git ?ull", "git pull")).toBe(true);
		expect(command("git ?ull", "git ull")).toBe(false);
		expect(command("*", "")).toBe(true);
		expect(command("", "")).toBe(true);
		expect(command("", "x")).toBe(false);
	});

	it("a backslash makes the next character literal", () => {
		expect(command("echo \\*", "echo *")).toBe(true);
		expect(command("echo \\*", "echo x")).toBe(false);
		expect(escapeGlob("a*b?c\\d")).toBe("a\\*b\\?c\\\\d");
		expect(command(escapeGlob("a*b?c\\d"), "a*b?c\\d")).toBe(true);
	});
});

describe("globs over paths", () => {
	it("* and ? stay inside a segment; ** crosses directories", () => {
		expect(path("*.ts", "a.ts")).toBe(true);
		expect(path("*.ts", "src/a.ts")).toBe(false);
		expect(path("src/**", "src/a/b/c.ts")).toBe(true);
		expect(path("src/**", "lib/a.ts")).toBe(false);
		expect(path("src/*.ts", "src/a.ts")).toBe(true);
		expect(path("src/*.ts", "src/a/b.ts")).toBe(false);
		expect(path("?.ts", "/.ts")).toBe(false);
	});

	it("**/ also matches no directory at all", () => {
		expect(path("**/*.ts", "a.ts")).toBe(true);
		expect(path("**/*.ts", "x/y/a.ts")).toBe(true);
		expect(path("src/**/test.ts", "src/test.ts")).toBe(true);
		expect(path("src/**/test.ts", "src/a/b/test.ts")).toBe(true);
		expect(path("src/**/test.ts", "srctest.ts")).toBe(false);
	});

	it("dot files are matched like any other name", () => {
		expect(path(".env", ".env")).toBe(true);
		expect(path("*", ".env")).toBe(true);
		expect(path("**/.env", "config/.env")).toBe(true);
	});

	it("agrees with the equivalent regular expression on random patterns and subjects", () => {
		const pattern = fc
			.array(fc.constantFrom("a", "b", "/", "*", "**", "?", "\\*"), { maxLength: 7 })
			.map((parts) => parts.join(""));
		const subject = fc.array(fc.constantFrom("a", "b", "/", "*"), { maxLength: 10 }).map((parts) => parts.join(""));
		fc.assert(
			fc.property(pattern, subject, fc.boolean(), (glob, text, paths) => {
				expect(matchGlob(compileGlob(glob, paths), text)).toBe(reference(glob, paths).test(text));
			}),
			{ numRuns: 3000 },
		);
	});

	it("takes linear time on input that makes backtracking matchers explode", () => {
		const subject = "a".repeat(200_000);
		expect(command("*a*a*a*a*a*a*a*a*b", subject)).toBe(false);
		expect(path("**/**/**/**/**/b", `${"a/".repeat(50_000)}c`)).toBe(false);
	});
});
