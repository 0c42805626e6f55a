import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { TokenStore } from "../../src/server/tokens.js";
import { CLI } from "../support/rpc-process.js";

const root = mkdtempSync(join(tmpdir(), "atomic-tokens-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("TokenStore", () => {
	it("keeps only the hash, in a 0600 file, and knows a token by it", () => {
		const store = new TokenStore(join(root, "a"));
		const secret = store.create("laptop", "controller");
		expect(secret).toMatch(/^atk_[A-Za-z0-9_-]{43}$/);
		const file = readFileSync(store.path, "utf8");
		expect(file).not.toContain(secret);
		expect(statSync(store.path).mode & 0o777).toBe(0o600);
		expect(store.verify(secret)).toMatchObject({ name: "laptop", role: "controller" });
		expect(store.verify(`${secret}x`)).toBeUndefined();
		expect(store.verify("")).toBeUndefined();
		const observer = store.create("phone", "observer");
		expect(store.verify(observer)).toMatchObject({ name: "phone", role: "observer" });
		expect(() => store.create("laptop", "observer")).toThrow('A token named "laptop" exists');
		expect(() => store.create("bad name", "observer")).toThrow("A token name is");
		store.revoke("laptop");
		expect(store.verify(secret)).toBeUndefined();
		expect(() => store.revoke("laptop")).toThrow('No token named "laptop"');
		expect(store.list().map((token) => token.name)).toEqual(["phone"]);
	});

	it("refuses every token when the file cannot be read as a token file (fails closed)", () => {
		const store = new TokenStore(join(root, "b"));
		const secret = store.create("one", "controller");
		writeFileSync(store.path, "{ not json");
		expect(() => store.verify(secret)).toThrow("is not valid JSON");
		writeFileSync(store.path, JSON.stringify({ tokens: [{ name: "one", role: "admin", hash: "x", createdAt: "" }] }));
		expect(() => store.verify(secret)).toThrow("is not a token file");
	});
});

describe("atomic token", () => {
	const agentDir = join(root, "cli");
	const run = (...args: string[]) =>
		spawnSync(process.execPath, [CLI, "token", ...args], {
			env: { ...process.env, ATOMIC_CODING_AGENT_DIR: agentDir },
			encoding: "utf8",
		});

	it("creates (printing the token once), lists and revokes", () => {
		const created = run("create", "--role", "observer", "--name", "ci");
		expect(created.status).toBe(0);
		const secret = created.stdout.trim();
		expect(new TokenStore(agentDir).verify(secret)).toMatchObject({ name: "ci", role: "observer" });
		const listed = run("list");
		expect(listed.stdout).toMatch(/^ci\tobserver\t\d{4}-/);
		expect(listed.stdout).not.toContain(secret);
		expect(run("create", "--role", "root", "--name", "x").stderr).toContain("--role must be controller or observer");
		expect(run("revoke", "ci").status).toBe(0);
		expect(run("revoke", "ci").stderr).toContain('No token named "ci"');
		expect(run("frobnicate").status).toBe(2);
	});
});
