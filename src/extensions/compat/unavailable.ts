/**
 * Named stand-ins for what pi offers and Atomic does not. Using one throws an error that names
 * the member and why it is missing, instead of JavaScript's `x is not a function` or `Cannot read
 * properties of undefined`. A stand-in can be referenced, extended (`class X extends Stub`) and
 * tested with `typeof` without throwing; calling or constructing it throws.
 */

export class NotAvailableError extends Error {
	constructor(what: string, reason: string) {
		super(`${what} is not available in Atomic${reason ? `: ${reason}` : ""}`);
		this.name = "NotAvailableError";
	}
}

/** A function that throws NotAvailableError when called or constructed. */
export function unavailable(what: string, reason = ""): (...args: unknown[]) => never {
	const stub = function notAvailable(): never {
		throw new NotAvailableError(what, reason);
	};
	Object.defineProperty(stub, "name", { value: what.split(/[.\s]/).at(-1) ?? what });
	return stub;
}

/** Names a module proxy never invents: thenables, interop markers and inspection hooks. */
const NEVER_STUBBED = new Set([
	"then",
	"default",
	"__esModule",
	"toJSON",
	"constructor",
	"prototype",
	"inspect",
	"valueOf",
	"toString",
	"asymmetricMatch",
	"$$typeof",
	"nodeType",
]);

function isExportName(key: string | symbol): key is string {
	return typeof key === "string" && !NEVER_STUBBED.has(key) && /^[A-Za-z_$][\w$]*$/.test(key);
}

/**
 * A module namespace for extensions: the exports Atomic implements, and for any other export name
 * a stand-in that throws `"<name>" from "<specifier>" is not available in Atomic: <reason>`.
 */
export function moduleWithStandIns(
	specifier: string,
	exports: Record<string, unknown>,
	reason: string,
): Record<string, unknown> {
	const standIns = new Map<string, unknown>();
	const standIn = (name: string) => {
		let stub = standIns.get(name);
		if (!stub) {
			stub = unavailable(`"${name}" from "${specifier}"`, reason);
			standIns.set(name, stub);
		}
		return stub;
	};
	// A copy: a module namespace is not extensible, and a proxy may not report names it lacks.
	return new Proxy(
		{ ...exports },
		{
			has: (target, key) => key in target || isExportName(key),
			get: (target, key) => {
				if (key in target) return target[key as string];
				return isExportName(key) ? standIn(key) : undefined;
			},
		},
	);
}
