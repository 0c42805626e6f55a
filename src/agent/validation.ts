import type { TSchema } from "typebox";
import { quickCheck } from "../llm/quick-check.js";

/** TypeBox's validator, loaded with the first tool call: start-up does not need it. */
let typeboxValue: Promise<typeof import("typebox/value").Value> | undefined;

/** How much of arguments that are not a JSON object the model is shown back. */
const MAX_RAW_SHOWN = 2000;

function loadValidator(): Promise<typeof import("typebox/value").Value> {
	typeboxValue ??= import("typebox/value").then(
		(module) => module.Value,
		(error: unknown) => {
			typeboxValue = undefined;
			throw error;
		},
	);
	return typeboxValue;
}

/** Whether TypeBox's validator was loaded (for tests of what a first tool call loads). */
export function argumentValidatorLoaded(): boolean {
	return typeboxValue !== undefined;
}

/** Loads the validator ahead of a first tool call (when the process has nothing else to do). */
export async function preloadArgumentValidator(): Promise<void> {
	await loadValidator();
}

export type ValidationResult = { ok: true; value: Record<string, unknown> } | { ok: false; message: string };

/**
 * Checks tool arguments against the tool's schema. Values the model sent with the wrong primitive
 * type are converted first where that is lossless ("5" for a number); what still does not match is
 * reported as one readable message listing every problem.
 */
export async function validateArguments(schema: TSchema, args: Record<string, unknown>): Promise<ValidationResult> {
	if ("__parseError" in args || "__raw" in args) {
		const reason = typeof args.__parseError === "string" ? ` (${args.__parseError})` : "";
		const raw = String(args.__raw ?? "");
		const shown = raw.length > MAX_RAW_SHOWN ? `${raw.slice(0, MAX_RAW_SHOWN)}... [${raw.length} characters]` : raw;
		return { ok: false, message: `The arguments were not a valid JSON object${reason}: ${shown}` };
	}
	// Arguments that certainly match need no conversion (TypeBox would leave them as they are):
	// the first tool call of a process does not wait for TypeBox's validator to load.
	if (quickCheck(schema, args)) return { ok: true, value: structuredClone(args) };
	const Value = await loadValidator();
	const converted = Value.Convert(schema, structuredClone(args)) as Record<string, unknown>;
	if (Value.Check(schema, converted)) return { ok: true, value: converted };
	const problems = [...Value.Errors(schema, converted)].map((error) => {
		const where = error.instancePath ? error.instancePath.slice(1).replaceAll("/", ".") : "arguments";
		return `${where}: ${error.message}`;
	});
	return { ok: false, message: `Invalid arguments: ${[...new Set(problems)].join("; ")}` };
}
