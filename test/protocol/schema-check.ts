/**
 * Checks records against the RPC schema twice: with TypeBox's value checker on the TypeBox
 * schemas (the definitions are each other's context, so `Type.Ref` resolves), and with TypeBox's
 * JSON Schema checker on the published document, so the document is proven to say the same.
 */
import type { XSchema } from "typebox/schema";
import Schema from "typebox/schema";
import { Value } from "typebox/value";
import { outputDefinitionName, RPC_SCHEMA_DEFS } from "../../src/rpc/protocol/schema-defs.js";
import { rpcSchemaDocument } from "../../src/rpc/protocol/schema-document.js";

interface LocatedError {
	instancePath: string;
	message: string;
}

/** Deepest first: in a union, the branch that got furthest usually names the real mistake. */
function describe(errors: readonly LocatedError[]): string[] {
	const depth = (error: LocatedError) => error.instancePath.split("/").length;
	const sorted = [...errors].sort((a, b) => depth(b) - depth(a));
	return [...new Set(sorted.map((error) => `${error.instancePath || "/"}: ${error.message}`))];
}

/** TypeBox's complaints about `value` as the definition `name`; [] when it matches. */
export function typeboxErrors(name: string, value: unknown): string[] {
	const schema = RPC_SCHEMA_DEFS[name];
	if (!schema) throw new Error(`the RPC schema has no definition "${name}"`);
	if (Value.Check(RPC_SCHEMA_DEFS, schema, value)) return [];
	const errors = describe(Value.Errors(RPC_SCHEMA_DEFS, schema, value));
	// A failed check always has a reason; an empty list would hide the failure.
	return errors.length > 0 ? errors : ["invalid (no details)"];
}

const document = rpcSchemaDocument();
const documentValidators = new Map<string, ReturnType<typeof Schema.Compile>>();

/** The published document's complaints about `value` as `#/$defs/<name>`; [] when it matches. */
export function documentErrors(name: string, value: unknown): string[] {
	let validator = documentValidators.get(name);
	if (!validator) {
		const root = { $schema: document.$schema, $id: document.$id, $defs: document.$defs, $ref: `#/$defs/${name}` };
		validator = Schema.Compile(root as XSchema);
		documentValidators.set(name, validator);
	}
	const [valid, errors] = validator.Errors(value);
	if (valid) return [];
	return errors.length > 0 ? describe(errors) : ["invalid (no details)"];
}

/** Both checks; each complaint names the checker and the definition. */
export function schemaProblems(name: string, value: unknown): string[] {
	return [
		...typeboxErrors(name, value).map((error) => `typebox ${name} ${error}`),
		...documentErrors(name, value).map((error) => `document ${name} ${error}`),
	];
}

export interface Failure {
	record: unknown;
	problems: string[];
}

/**
 * Checks a stdout record against its own definition and against `OutputRecord`. The specific
 * complaints come first; the union's (one per branch, mostly noise) are summarised when those
 * already explain the failure.
 */
export function outputRecordProblems(record: Record<string, unknown>): string[] {
	const specific = outputDefinitionName(record);
	const own = specific ? schemaProblems(specific, record) : ["no definition describes this kind of record"];
	const union = schemaProblems("OutputRecord", record);
	if (union.length === 0) return own;
	return own.length > 0 ? [...own, "(OutputRecord fails too)"] : [...new Set(union)];
}

/** A readable report: each failing record (shortened) and its first complaints. */
export function formatFailures(failures: readonly Failure[]): string {
	return failures
		.slice(0, 10)
		.map(({ record, problems }) => {
			const text = JSON.stringify(record);
			const shown = text.length > 1500 ? `${text.slice(0, 1500)}...` : text;
			return `${shown}\n  ${problems.slice(0, 12).join("\n  ")}`;
		})
		.join("\n\n");
}
