import type { TSchema } from "typebox";
import { Value } from "typebox/value";

/** `a.b[0]` for the JSON pointer `/a/b/0`, under `prefix`. */
function fieldName(prefix: string, instancePath: string): string {
	let name = prefix;
	for (const part of instancePath.split("/").filter(Boolean)) {
		name += /^\d+$/.test(part) ? `[${part}]` : name ? `.${part}` : part;
	}
	return name || "the file";
}

function article(type: unknown): string {
	if (type === "integer") return "an integer";
	if (type === "object" || type === "array") return `an ${type}`;
	return `a ${typeof type === "string" ? type : "value"}`;
}

/**
 * Why `value`, which failed `Value.Check(schema, value)`, does not match: one phrase naming the
 * field (`prefix` names the value itself, e.g. `mcpServers.fs`).
 */
export function schemaProblem(schema: TSchema, value: unknown, prefix: string): string {
	const errors = [...Value.Errors(schema, value)];
	const required = errors.find((error) => error.keyword === "required");
	if (required) {
		const missing = (required.params as { requiredProperties?: string[] }).requiredProperties ?? [];
		return `${fieldName(prefix, required.instancePath)} needs ${missing.map((name) => `"${name}"`).join(", ")}`;
	}
	const error = errors[0];
	if (!error) return `${prefix} is not valid`;
	const field = fieldName(prefix, error.instancePath);
	const atPath = errors.filter((candidate) => candidate.instancePath === error.instancePath);
	const allowed = atPath.find((candidate) => candidate.keyword === "enum" || candidate.keyword === "const");
	if (allowed) {
		const params = allowed.params as { allowedValues?: unknown[]; allowedValue?: unknown };
		const values = params.allowedValues ?? [params.allowedValue];
		return `${field} must be ${values.map((item) => JSON.stringify(item)).join(" or ")}`;
	}
	const type = atPath.find((candidate) => candidate.keyword === "type");
	if (type) return `${field} must be ${article((type.params as { type?: unknown }).type)}`;
	if (error.keyword === "minLength") return `${field} must not be empty`;
	return `${field} ${error.message}`;
}
