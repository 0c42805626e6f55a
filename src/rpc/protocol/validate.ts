import type { TSchema } from "typebox";
import type { Value as TypeBoxValue } from "typebox/value";
import { quickCheck } from "../../llm/quick-check.js";
import type { RecordText } from "../framing.js";
import {
	COMMANDS,
	type Command,
	type ExtensionUiResponse,
	ExtensionUiResponseSchema,
	isCommandType,
} from "./commands.js";
import type { ErrorResponse, ResponseId } from "./responses.js";

/** TypeBox's validator, loaded on first need: a valid command is accepted without it. */
let validator: typeof TypeBoxValue | undefined;
let validatorLoading: Promise<void> | undefined;
/** Set when loading failed (a broken install): errors are then described less precisely. */
let validatorMissing = false;

/** Loads TypeBox's validator once; `parseInput` answers `wait` until it is there when it needs it. */
export function loadValidator(): Promise<void> {
	validatorLoading ??= import("typebox/value").then(
		(module) => {
			validator = module.Value;
		},
		(error: unknown) => {
			validatorMissing = true;
			process.stderr.write(`Warning: cannot load the command validator: ${String(error)}\n`);
		},
	);
	return validatorLoading;
}

export type ParsedInput =
	/** The record needs the full validator: parse it again once `ready` resolves. */
	| { kind: "wait"; ready: Promise<void> }
	| { kind: "command"; command: Command }
	| { kind: "ui_response"; response: ExtensionUiResponse }
	| { kind: "error"; response: ErrorResponse };

function errorResponse(command: string, error: string, id?: ResponseId): ParsedInput {
	const response: ErrorResponse = { type: "response", command, success: false, error };
	return { kind: "error", response: id === undefined ? response : { id, ...response } };
}

function describeValue(value: unknown): string {
	if (value === null) return "null";
	if (Array.isArray(value)) return "an array";
	return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * Turns one input record into a validated command, a dialog answer, or the one error response it
 * deserves: invalid JSON → `command: "parse"` (no id: the line could not be read); not an object
 * or no string `type` → `command: "unknown"`; an unknown type → `Unknown command: <type>`; a known
 * type with bad fields → an error naming the field. The id is echoed whenever one could be read.
 */
export function parseInput(record: RecordText): ParsedInput {
	if (!record.ok) return errorResponse("parse", `Failed to parse command: ${record.error}`);
	let value: unknown;
	try {
		value = JSON.parse(record.text);
	} catch (error) {
		const reason = record.text.trim() === "" ? "empty line" : error instanceof Error ? error.message : String(error);
		return errorResponse("parse", `Failed to parse command: ${reason}`);
	}
	if (typeof value !== "object" || value === null || Array.isArray(value)) {
		return errorResponse(
			"unknown",
			`Invalid command: expected a JSON object with a "type" field, got ${describeValue(value)}`,
		);
	}
	const object = value as Record<string, unknown>;
	const id = typeof object.id === "string" || typeof object.id === "number" ? object.id : undefined;
	if (object.id !== undefined && id === undefined) {
		return errorResponse(
			typeof object.type === "string" ? object.type : "unknown",
			`Invalid command: "id" must be a string or a number, got ${describeValue(object.id)}`,
		);
	}
	if (object.type === undefined) return errorResponse("unknown", 'Invalid command: missing "type" field', id);
	if (typeof object.type !== "string") {
		return errorResponse("unknown", `Invalid command: "type" must be a string, got ${describeValue(object.type)}`, id);
	}
	const type = object.type;
	const isUiResponse = type === "extension_ui_response";
	if (!isUiResponse && !isCommandType(type)) return errorResponse(type, `Unknown command: ${type}`, id);
	const schema = isUiResponse ? ExtensionUiResponseSchema : COMMANDS[type];
	// Nearly every command passes the quick check; the rest are judged (and explained) by TypeBox.
	if (!quickCheck(schema, object)) {
		if (!validator && !validatorMissing) return { kind: "wait", ready: loadValidator() };
		const problem = firstProblem(schema, object);
		if (problem) return errorResponse(type, `Invalid "${type}"${isUiResponse ? "" : " command"}: ${problem}`, id);
	}
	return isUiResponse
		? { kind: "ui_response", response: object as ExtensionUiResponse }
		: { kind: "command", command: object as Command };
}

/**
 * The most useful description of why `value` does not match `schema`, or undefined when it does.
 * Needs `loadValidator()` to have finished (when it failed, the description is generic).
 */
function firstProblem(schema: TSchema, value: unknown): string | undefined {
	if (!validator) return "does not match the command's schema";
	if (validator.Check(schema, value)) return undefined;
	const errors = [...validator.Errors(schema, value)];
	const required = errors.find((error) => error.keyword === "required");
	if (required) {
		const missing = (required.params as { requiredProperties?: string[] }).requiredProperties ?? [];
		const prefix = fieldName(required.instancePath);
		return `missing required field ${missing.map((name) => `"${prefix ? `${prefix}.` : ""}${name}"`).join(", ")}`;
	}
	const error = errors[0];
	if (!error) return "invalid value";
	const field = fieldName(error.instancePath) || "command";
	const atPath = errors.filter((candidate) => candidate.instancePath === error.instancePath);
	const enumError = atPath.find((candidate) => candidate.keyword === "enum");
	if (enumError) {
		const allowed = (enumError.params as { allowedValues?: unknown[] }).allowedValues ?? [];
		return `field "${field}" must be one of ${allowed.map((item) => JSON.stringify(item)).join(", ")}`;
	}
	const types = atPath
		.filter((candidate) => candidate.keyword === "type")
		.map((candidate) => (candidate.params as { type?: string }).type);
	if (types.length > 0) return `field "${field}" must be ${types.map(article).join(" or ")}`;
	return `field "${field}" ${error.message}`;
}

function fieldName(instancePath: string): string {
	return instancePath
		.split("/")
		.filter(Boolean)
		.map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
		.join("")
		.replace(/^\./, "");
}

function article(type: string | undefined): string {
	if (type === "integer") return "an integer";
	if (type === "object" || type === "array") return `an ${type}`;
	return `a ${type ?? "value"}`;
}
