import { isTokenRole, TOKEN_ROLES, TokenStore } from "../server/tokens.js";

const USAGE = [
	"usage: atomic token create --role controller|observer --name NAME",
	"       atomic token list",
	"       atomic token revoke NAME",
].join("\n");

/** The value after `flag` in `args` (`--flag value` or `--flag=value`), or undefined. */
function flagValue(args: readonly string[], flag: string): string | undefined {
	for (let index = 0; index < args.length; index++) {
		const arg = args[index] as string;
		if (arg === flag) return args[index + 1];
		if (arg.startsWith(`${flag}=`)) return arg.slice(flag.length + 1);
	}
	return undefined;
}

/**
 * `atomic token …`: makes, lists and revokes the tokens `atomic serve` accepts. A new token is
 * printed once on stdout; only its hash is stored. Returns the exit code.
 */
export function tokenCommand(args: readonly string[], agentDir: string): number {
	const store = new TokenStore(agentDir);
	const [action, ...rest] = args;
	try {
		if (action === "create") {
			const role = flagValue(rest, "--role");
			const name = flagValue(rest, "--name");
			if (!isTokenRole(role)) throw new Error(`--role must be ${TOKEN_ROLES.join(" or ")} (got ${role ?? "nothing"})`);
			if (name === undefined) throw new Error("--name NAME is required");
			const secret = store.create(name, role);
			process.stdout.write(`${secret}\n`);
			process.stderr.write(`Token "${name}" (${role}) made; it is shown only now. Stored: ${store.path}\n`);
			return 0;
		}
		if (action === "list") {
			const tokens = store.list();
			if (tokens.length === 0) process.stdout.write("(no tokens)\n");
			for (const token of tokens) process.stdout.write(`${token.name}\t${token.role}\t${token.createdAt}\n`);
			return 0;
		}
		if (action === "revoke") {
			const name = rest[0];
			if (name === undefined) throw new Error("revoke needs the token's NAME");
			store.revoke(name);
			process.stderr.write(`Token "${name}" revoked\n`);
			return 0;
		}
		process.stderr.write(`${USAGE}\n`);
		return 2;
	} catch (error) {
		process.stderr.write(`Error: ${error instanceof Error ? error.message : String(error)}\n`);
		return 1;
	}
}
