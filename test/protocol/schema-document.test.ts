import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import Schema from "typebox/schema";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/rpc/protocol/commands.js";
import { SCHEMA_PROTOCOL_VERSION } from "../../src/rpc/protocol/event-schemas.js";
import { RPC_SCHEMA_DEFS } from "../../src/rpc/protocol/schema-defs.js";
import { RPC_SCHEMA_ID, rpcSchemaDocument, rpcSchemaText } from "../../src/rpc/protocol/schema-document.js";
import { PROTOCOL_VERSION } from "../../src/rpc/rpc-mode.js";
import { CLI } from "../support/rpc-process.js";

const CHECKED_IN = "docs/rpc-schema.json";

describe("the published RPC schema document", () => {
	it("is up to date in docs/rpc-schema.json", () => {
		const current = readFileSync(CHECKED_IN, "utf8");
		expect(current === rpcSchemaText(), `${CHECKED_IN} is out of date: run \`npm run schema\``).toBe(true);
	});

	it("is what `atomic --rpc-schema` prints", () => {
		const result = spawnSync(process.execPath, [CLI, "--rpc-schema"], { encoding: "utf8" });
		expect(result.stderr).toBe("");
		expect(result.status).toBe(0);
		expect(result.stdout === readFileSync(CHECKED_IN, "utf8"), "the CLI prints another document").toBe(true);
		expect(result.stdout).toBe(rpcSchemaText());
	});

	it("is pretty-printed JSON with a final newline and the same document twice", () => {
		const text = rpcSchemaText();
		expect(text.endsWith("}\n")).toBe(true);
		expect(text).toBe(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);
		expect(rpcSchemaText()).toBe(text);
	});

	it("is a valid draft 2020-12 schema with the entry points at the top", () => {
		const document = rpcSchemaDocument();
		expect(Schema.Check(Schema.Meta["https://json-schema.org/draft/2020-12/schema"], document)).toBe(true);
		expect(document.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
		expect(document.$id).toBe(RPC_SCHEMA_ID);
		expect(document.anyOf).toEqual([{ $ref: "#/$defs/InputRecord" }, { $ref: "#/$defs/OutputRecord" }]);
		const names = Object.keys(document.$defs as object);
		expect(names).toEqual([...names].sort());
		expect(names).toEqual([...Object.keys(RPC_SCHEMA_DEFS)].sort());
	});

	it("resolves every $ref to a definition and keeps no nested $id", () => {
		const text = rpcSchemaText();
		const document = rpcSchemaDocument();
		const defs = document.$defs as Record<string, unknown>;
		const refs = [...text.matchAll(/"\$ref": "([^"]*)"/g)].map((match) => match[1] as string);
		expect(refs.length).toBeGreaterThan(100);
		for (const ref of refs) {
			expect(ref.startsWith("#/$defs/"), ref).toBe(true);
			expect(Object.hasOwn(defs, ref.slice("#/$defs/".length)), ref).toBe(true);
		}
		expect(text.match(/"\$id"/g)).toHaveLength(1);
	});

	it("defines a command and a success response for every command type, and nothing more", () => {
		const commandTypes = Object.keys(COMMANDS).sort();
		const names = Object.keys(RPC_SCHEMA_DEFS);
		const suffixes = (prefix: string) =>
			names
				.filter((name) => name.startsWith(prefix))
				.map((name) => name.slice(prefix.length))
				.sort();
		expect(suffixes("command.")).toEqual(commandTypes);
		expect(suffixes("response.").filter((name) => name !== "error")).toEqual(commandTypes);
	});

	it("describes the protocol version the server speaks", () => {
		expect(SCHEMA_PROTOCOL_VERSION).toBe(PROTOCOL_VERSION);
		expect(RPC_SCHEMA_ID).toBe(`urn:atomic-agent:rpc:v${PROTOCOL_VERSION}`);
	});
});
