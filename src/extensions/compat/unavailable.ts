/**
 * Named stand-ins for what pi offers and Atomic does not. Using one throws an error that names
 * the member and why it is missing, instead of JavaScript's `x is not a function` or `Cannot read
 * properties of undefined`. A stand-in can be referenced, extended (`class X extends Stub`),
 * tested with `typeof` and have its members read (`Stub.list` is a stand-in too); calling or
 * constructing one throws.
 */

export class NotAvailableError extends Error {
	constructor(what: string, reason: string) {
		super(`${what} is not available in Atomic${reason ? `: ${reason}` : ""}`);
		this.name = "NotAvailableError";
	}
}

/** What constructing a stand-in would give (it throws first): every member is a stand-in. */
export interface StandInInstance {
	readonly [member: string]: StandIn;
}

/** The type of a stand-in: callable, constructible, and every member is a stand-in. */
export interface StandIn {
	new (...args: unknown[]): StandInInstance;
	(...args: unknown[]): never;
	readonly [member: string]: StandIn;
}

/** Names a proxy never invents: thenables, interop markers and inspection hooks. */
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

function isMemberName(key: string | symbol): key is string {
	return typeof key === "string" && !NEVER_STUBBED.has(key) && /^[A-Za-z_$][\w$]*$/.test(key);
}

/** A function that throws NotAvailableError when called or constructed. */
export function unavailable(what: string, reason = ""): (...args: unknown[]) => never {
	return function notAvailable(): never {
		throw new NotAvailableError(what, reason);
	};
}

/**
 * A stand-in for `path` (see StandIn), named `"path" from "specifier"` when it is a module's
 * export; its members are stand-ins for `path.member`.
 */
export function standIn(path: string, reason: string, specifier?: string): StandIn {
	const members = new Map<string, StandIn>();
	const target = unavailable(specifier === undefined ? path : `"${path}" from "${specifier}"`, reason);
	const proxy: unknown = new Proxy(target, {
		get(fn, key, receiver) {
			if (key in fn || !isMemberName(key)) return Reflect.get(fn, key, receiver);
			let member = members.get(key);
			if (!member) {
				member = standIn(`${path}.${key}`, reason, specifier);
				members.set(key, member);
			}
			return member;
		},
	});
	return proxy as StandIn;
}

/**
 * A module namespace for extensions: the exports Atomic implements, and for any other export name
 * a stand-in named `"<name>" from "<specifier>"`.
 */
export function moduleWithStandIns(
	specifier: string,
	exports: Record<string, unknown>,
	reason: string,
): Record<string, unknown> {
	const standIns = new Map<string, StandIn>();
	// A copy: a module namespace is not extensible, and a proxy may not report names it lacks.
	return new Proxy(
		{ ...exports },
		{
			has: (target, key) => key in target || isMemberName(key),
			get: (target, key) => {
				if (key in target) return target[key as string];
				if (!isMemberName(key)) return undefined;
				let stub = standIns.get(key);
				if (!stub) {
					stub = standIn(key, reason, specifier);
					standIns.set(key, stub);
				}
				return stub;
			},
		},
	);
}
