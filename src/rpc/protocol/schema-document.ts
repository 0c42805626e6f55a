/**
 * The published JSON Schema (draft 2020-12) of the RPC protocol, built from the TypeBox schemas:
 * `npm run schema` writes it to docs/rpc-schema.json and `atomic --rpc-schema` prints it.
 * Definitions are sorted by name; TypeBox's names in `$ref` become `#/$defs/<name>` pointers, and
 * an embedded schema that carries the `$id` of a definition becomes a reference to it.
 */
import { SCHEMA_PROTOCOL_VERSION as PROTOCOL_VERSION } from "./event-schemas.js";
import { RPC_SCHEMA_DEFS } from "./schema-defs.js";

export const RPC_SCHEMA_ID = `urn:atomic-agent:rpc:v${PROTOCOL_VERSION}`;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

function pointerTo(name: string): string {
	return `#/$defs/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`;
}

/** Rewrites one definition for the document; `refs` collects the names it points at. */
function rewrite(node: Json, isRoot: boolean, refs: Set<string>): Json {
	if (Array.isArray(node)) return node.map((item) => rewrite(item, false, refs));
	if (node === null || typeof node !== "object") return node;
	const id = node.$id;
	if (!isRoot && typeof id === "string" && Object.hasOwn(RPC_SCHEMA_DEFS, id)) {
		refs.add(id);
		return { $ref: pointerTo(id) };
	}
	const out: JsonObject = {};
	for (const [key, value] of Object.entries(node)) {
		// A definition's identity is its place in $defs; a nested $id would make a separate resource.
		if (key === "$id") continue;
		if (key === "$ref" && typeof value === "string" && !value.startsWith("#")) {
			refs.add(value);
			out.$ref = pointerTo(value);
			continue;
		}
		out[key] = rewrite(value, false, refs);
	}
	return out;
}

/** The whole document. Throws when a definition refers to a name that is not defined. */
export function rpcSchemaDocument(): JsonObject {
	const refs = new Set<string>();
	const defs: JsonObject = {};
	for (const name of Object.keys(RPC_SCHEMA_DEFS).sort()) {
		// A JSON round trip keeps exactly what JSON Schema sees (TypeBox's markers are not enumerable).
		const plain = JSON.parse(JSON.stringify(RPC_SCHEMA_DEFS[name])) as Json;
		defs[name] = rewrite(plain, true, refs);
	}
	const missing = [...refs].filter((name) => !Object.hasOwn(defs, name));
	if (missing.length > 0) throw new Error(`RPC schema refers to undefined definitions: ${missing.join(", ")}`);
	return {
		$schema: "https://json-schema.org/draft/2020-12/schema",
		$id: RPC_SCHEMA_ID,
		title: "Atomic RPC protocol",
		description: [
			`Records of \`atomic --mode rpc\`, protocol version ${PROTOCOL_VERSION}: one JSON object per LF-terminated line.`,
			"Entry points: $defs/InputRecord (stdin: a Command or an ExtensionUiResponse) and",
			"$defs/OutputRecord (stdout: a Response or an Event). Specific definitions: command.<type>,",
			"response.<command> (success) and response.error (failure), event.<type>, and",
			"event.extension_ui_request.<method>. Records may carry properties not listed here: clients ignore them.",
		].join(" "),
		anyOf: [{ $ref: pointerTo("InputRecord") }, { $ref: pointerTo("OutputRecord") }],
		$defs: defs,
	};
}

/** The document as written to docs/rpc-schema.json: two-space indentation and a final newline. */
export function rpcSchemaText(): string {
	return `${JSON.stringify(rpcSchemaDocument(), null, 2)}\n`;
}
