import type { SandboxPolicy } from "./policy.js";
import type { SandboxDenial } from "./types.js";

/** At most this many denials are named in one result. */
const MAX_DENIALS = 10;

const WRITE_DENIED = /(?:^|[\s'"`(])(\/[^\s'"`:]*)['"`]?(?:\)|:)?[^\n]{0,40}?Read-only file system/gm;
const HOST_UNRESOLVED = [
	/Could not resolve host:? ([\w.-]+)/g,
	/getaddrinfo (?:ENOTFOUND|EAI_AGAIN) ([\w.-]+)/g,
	/Temporary failure in name resolution[^\n]*?([\w-]+(?:\.[\w-]+)+)?/g,
	/unable to resolve host address '?([\w.-]+)/g,
];
const NETWORK_DOWN = /Network is unreachable|Couldn't connect to server|connect: Connection refused|ECONNREFUSED/;
const PROXY_REFUSED = /atomic sandbox: ([\w.*:-]+) is not on the network allow-list/g;

/**
 * What the sandbox denied a command, read from its output and exit: the kernel says only
 * "Read-only file system", "Could not resolve host" or "Resource temporarily unavailable", so this
 * is as good as those messages (docs/sandbox.md). Paths the sandbox hides are reported when the
 * output names them.
 */
export function findDenials(policy: SandboxPolicy, output: string, exitCode: number | undefined): SandboxDenial[] {
	const denied: SandboxDenial[] = [];
	const add = (denial: SandboxDenial) => {
		if (denied.length >= MAX_DENIALS) return;
		if (!denied.some((seen) => seen.kind === denial.kind && seen.target === denial.target)) denied.push(denial);
	};
	for (const match of output.matchAll(WRITE_DENIED)) if (match[1]) add({ kind: "write", target: match[1] });
	if (denied.length === 0 && output.includes("Read-only file system")) add({ kind: "write", target: "(unknown)" });
	for (const hidden of policy.denyRead) if (output.includes(hidden)) add({ kind: "read", target: hidden });
	for (const match of output.matchAll(PROXY_REFUSED)) if (match[1]) add({ kind: "network", target: match[1] });
	if (policy.network !== "on") {
		for (const pattern of HOST_UNRESOLVED)
			for (const match of output.matchAll(pattern)) add({ kind: "network", target: match[1] ?? "(unknown)" });
		if (NETWORK_DOWN.test(output)) add({ kind: "network", target: "(unknown)" });
	}
	if (/fork: (?:retry: )?Resource temporarily unavailable|Cannot fork/.test(output)) {
		add({ kind: "limit", target: "processes" });
	}
	if (
		/cannot allocate|out of memory|std::bad_alloc|MemoryError|memory exhausted/i.test(output) &&
		policy.limits.memoryMb
	) {
		add({ kind: "limit", target: "memoryMb" });
	}
	// 152 = 128 + SIGXCPU: the CPU time limit ended the command.
	if (exitCode === 152 || /CPU time limit exceeded/.test(output)) add({ kind: "limit", target: "cpuSeconds" });
	return denied;
}

/** The line that tells the model what the sandbox stopped, and how to ask for more. */
export function denialNotice(policy: SandboxPolicy, denied: readonly SandboxDenial[]): string {
	const what = denied.map((denial) => `${denial.kind} ${denial.target}`).join(", ");
	return (
		`[The sandbox (${policy.mode}, network ${describeNetwork(policy.network)}) denied: ${what}. ` +
		"Work inside the writable roots, or if this command must run outside the sandbox, call bash again " +
		'with "escalate": true and a "justification": the user is asked.]'
	);
}

export function describeNetwork(network: SandboxPolicy["network"]): string {
	return typeof network === "string" ? network : `only ${network.join(", ")}`;
}
