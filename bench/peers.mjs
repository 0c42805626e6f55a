// The agents a bench run compares: Atomic from this checkout, and the two pi peers, installed with
// npm into bench/peers/<id>/ on first use.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoDir = resolve(benchDir, "..");
const peersDir = join(benchDir, "peers");

const peerDefinitions = [
	{
		id: "pi-1.6.0",
		label: "pi 1.6.0",
		packageName: "@earendil-works/pi-coding-agent",
		version: "1.6.0",
		// pi 1.6.0 needs Node ≥ 22.19; the npm `node` package puts a Node 22 binary in node_modules/.bin.
		extraPackages: ["node@22"],
		nodeMajor: 22,
		// pi 1.6.0, like Atomic, ends each prompt's lifecycle with an agent_settled event.
		settles: true,
	},
	{
		id: "pi-0.73.1",
		label: "pi 0.73.1",
		packageName: "@mariozechner/pi-coding-agent",
		version: "0.73.1",
		extraPackages: [],
		nodeMajor: 20,
		settles: false,
	},
];

export const agentIds = ["atomic", ...peerDefinitions.map((peer) => peer.id)];

/**
 * Atomic as launched by the conformance suite: `node dist/cli.js`, building dist first if it is
 * missing. `nodeArgs` go before the script (e.g. `--cpu-prof`). Another checkout (`--baseline`) is
 * the agent `atomic-base`, measured beside this one: its dist must be built.
 */
export function atomicSpec(nodeArgs = [], checkout = repoDir) {
	const base = checkout !== repoDir;
	const cli = join(checkout, "dist", "cli.js");
	if (base && !existsSync(cli)) {
		console.error(`# Atomic base unavailable: ${cli} is missing (run npm ci in ${checkout})`);
		return { id: "atomic-base", label: "Atomic base", kind: "atomic", available: false, reason: `${cli} is missing` };
	}
	if (!existsSync(cli)) {
		console.error("# dist/cli.js is missing: building (node scripts/build.mjs --no-types)");
		execFileSync(process.execPath, [join(repoDir, "scripts", "build.mjs"), "--no-types"], {
			cwd: repoDir,
			stdio: "inherit",
		});
	}
	const version = JSON.parse(readFileSync(join(checkout, "package.json"), "utf8")).version;
	return {
		id: base ? "atomic-base" : "atomic",
		label: base ? `Atomic base ${commitOf(checkout)}` : "Atomic",
		kind: "atomic",
		version,
		available: true,
		command: process.execPath,
		args: [...nodeArgs, cli],
		configEnv: "ATOMIC_CODING_AGENT_DIR",
		pathPrefix: undefined,
		nodeVersion: process.version,
		settles: true,
	};
}

/** The short commit a checkout is at, for the table's column. */
function commitOf(checkout) {
	const result = spawnSync("git", ["-C", checkout, "rev-parse", "--short", "HEAD"], { encoding: "utf8" });
	return result.status === 0 ? result.stdout.trim() : checkout;
}

function installedVersion(dir, packageName) {
	const manifest = join(dir, "node_modules", ...packageName.split("/"), "package.json");
	if (!existsSync(manifest)) return undefined;
	return JSON.parse(readFileSync(manifest, "utf8")).version;
}

function install(peer, dir) {
	mkdirSync(dir, { recursive: true });
	const manifest = join(dir, "package.json");
	if (!existsSync(manifest))
		writeFileSync(manifest, `${JSON.stringify({ private: true, name: `bench-peer-${peer.id}` })}\n`);
	const packages = [`${peer.packageName}@${peer.version}`, ...peer.extraPackages];
	console.error(`# installing ${packages.join(" ")} into ${dir}`);
	const result = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...packages], {
		cwd: dir,
		stdio: ["ignore", "inherit", "pipe"],
		encoding: "utf8",
	});
	if (result.error) throw new Error(`npm install could not run: ${result.error.message}`, { cause: result.error });
	if (result.status !== 0)
		throw new Error(`npm install failed (${result.status}): ${result.stderr.trim().slice(-400)}`);
}

/** The Node binary a peer runs on: the Node 22 from its own node_modules, or the Node running the bench. */
function peerNode(peer, binDir) {
	const node = peer.nodeMajor === 20 ? process.execPath : join(binDir, "node");
	const result = spawnSync(node, ["--version"], { encoding: "utf8" });
	if (result.error) throw new Error(`${node} does not run: ${result.error.message}`, { cause: result.error });
	const version = result.stdout.trim();
	if (!version.startsWith(`v${peer.nodeMajor}.`))
		throw new Error(`${node} is ${version}, expected Node ${peer.nodeMajor}`);
	return { node, version };
}

/** Installs the peer if needed and describes how to launch it; `available: false` with a reason on failure. */
function resolvePeer(peer, allowInstall) {
	const dir = join(peersDir, peer.id);
	const base = {
		id: peer.id,
		label: peer.label,
		version: peer.version,
		kind: "pi",
		configEnv: "PI_CODING_AGENT_DIR",
		settles: peer.settles,
	};
	try {
		if (installedVersion(dir, peer.packageName) !== peer.version) {
			if (!allowInstall) throw new Error(`not installed in ${dir} (run without --no-install)`);
			install(peer, dir);
		}
		const binDir = join(dir, "node_modules", ".bin");
		const command = join(binDir, "pi");
		if (!existsSync(command)) throw new Error(`${command} is missing after the install`);
		const { node, version } = peerNode(peer, binDir);
		// pi starts through `#!/usr/bin/env node`, so the first node on PATH decides its runtime.
		return { ...base, available: true, command, args: [], pathPrefix: dirname(node), nodeVersion: version };
	} catch (error) {
		const reason = error instanceof Error ? error.message : String(error);
		console.error(`# ${peer.label} unavailable: ${reason}`);
		return { ...base, available: false, reason };
	}
}

/** Launch specs for the requested agents, in table order. */
export function resolveAgents(wanted, { allowInstall, atomicNodeArgs = [], baseline }) {
	const specs = [];
	if (wanted.includes("atomic")) specs.push(atomicSpec(atomicNodeArgs));
	if (baseline !== undefined) specs.push(atomicSpec(atomicNodeArgs, baseline));
	for (const peer of peerDefinitions) if (wanted.includes(peer.id)) specs.push(resolvePeer(peer, allowInstall));
	return specs;
}
