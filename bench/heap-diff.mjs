// Compares two V8 heap snapshots (e.g. long-session's after 25 and 1500 prompts, see index.mjs):
//   node bench/heap-diff.mjs <a.heapsnapshot> <b.heapsnapshot> [--top N]
// Prints the totals, the growth by kind of node (constructor name, or string/code/array...), and the
// growth by owner: each node is charged to the nearest named object (a class instance or a function)
// on its shortest path from the GC roots, with the property that leads to it (`Agent.messages`).
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
	allowPositionals: true,
	options: { top: { type: "string", default: "25" } },
});
if (positionals.length !== 2) {
	console.error("usage: node bench/heap-diff.mjs <a.heapsnapshot> <b.heapsnapshot> [--top N]");
	process.exit(2);
}
const top = Number(values.top);
const genericNames = new Set(["Object", "Array", "Map", "Set", "Promise", ""]);

function kindOf(type, name) {
	if (type === "string" || type === "concatenated string" || type === "sliced string") return "(string)";
	if (type === "object") return name.slice(0, 60);
	if (type === "hidden" || type === "native") return `(${type}) ${name.slice(0, 40)}`;
	return `(${type})`;
}

function analyse(file) {
	const snapshot = JSON.parse(readFileSync(file, "utf8"));
	const meta = snapshot.snapshot.meta;
	const { nodes, edges, strings } = snapshot;
	const nodeFields = meta.node_fields.length;
	const edgeFields = meta.edge_fields.length;
	const nodeTypes = meta.node_types[0];
	const edgeTypes = meta.edge_types[0];
	const [iType, iName, iSize, iEdges] = ["type", "name", "self_size", "edge_count"].map((f) =>
		meta.node_fields.indexOf(f),
	);
	const [eType, eName, eTo] = ["type", "name_or_index", "to_node"].map((f) => meta.edge_fields.indexOf(f));
	const count = nodes.length / nodeFields;
	const firstEdge = new Uint32Array(count + 1);
	for (let node = 0, edge = 0; node < count; node++) {
		firstEdge[node] = edge;
		edge += nodes[node * nodeFields + iEdges] * edgeFields;
	}
	firstEdge[count] = edges.length;
	const type = (node) => nodeTypes[nodes[node * nodeFields + iType]];
	const name = (node) => strings[nodes[node * nodeFields + iName]];
	// Breadth first from the root over strong edges: the parent on a shortest retaining path.
	const parent = new Int32Array(count).fill(-1);
	const viaEdge = new Array(count);
	const order = new Int32Array(count);
	let head = 0;
	let tail = 0;
	order[tail++] = 0;
	parent[0] = 0;
	while (head < tail) {
		const node = order[head++];
		for (let edge = firstEdge[node]; edge < firstEdge[node + 1]; edge += edgeFields) {
			const kind = edgeTypes[edges[edge + eType]];
			if (kind === "weak" || kind === "shortcut") continue;
			const target = edges[edge + eTo] / nodeFields;
			if (parent[target] !== -1) continue;
			parent[target] = node;
			viaEdge[target] = kind === "element" || kind === "hidden" ? "[]" : strings[edges[edge + eName]];
			order[tail++] = target;
		}
	}
	const isNamed = (node) =>
		(type(node) === "object" || type(node) === "closure") &&
		!genericNames.has(name(node)) &&
		!name(node).startsWith("system /");
	const kinds = new Map();
	const owners = new Map();
	let total = 0;
	const add = (map, key, size) => {
		const entry = map.get(key) ?? { count: 0, size: 0 };
		entry.count++;
		entry.size += size;
		map.set(key, entry);
	};
	for (let index = 0; index < tail; index++) {
		const node = order[index];
		const size = nodes[node * nodeFields + iSize];
		total += size;
		add(kinds, kindOf(type(node), name(node)), size);
		let current = node;
		let edge = "";
		for (let hops = 0; current !== 0 && hops < 40; hops++) {
			const up = parent[current];
			if (up === 0 || isNamed(up)) {
				edge = viaEdge[current];
				current = up;
				break;
			}
			current = up;
		}
		add(owners, `${type(current)} ${name(current).slice(0, 40)}.${edge}`, size);
	}
	return { total, reachable: tail, kinds, owners };
}

const [a, b] = positionals.map(analyse);
const mb = (bytes) => (bytes / 1048576).toFixed(2);
console.log(`reachable: ${mb(a.total)} MB in ${a.reachable} nodes → ${mb(b.total)} MB in ${b.reachable} nodes`);
for (const [title, key] of [
	["growth by kind", "kinds"],
	["growth by owner", "owners"],
]) {
	console.log(`--- ${title} (KB delta, count delta, KB before → after)`);
	const keys = new Set([...a[key].keys(), ...b[key].keys()]);
	const rows = [...keys].map((name) => {
		const before = a[key].get(name) ?? { count: 0, size: 0 };
		const after = b[key].get(name) ?? { count: 0, size: 0 };
		return { name, before, after, delta: after.size - before.size };
	});
	for (const row of rows.sort((x, y) => y.delta - x.delta).slice(0, top)) {
		const delta = `${(row.delta / 1024).toFixed(0).padStart(7)} KB ${String(row.after.count - row.before.count).padStart(7)}`;
		console.log(
			`${delta}  ${(row.before.size / 1024).toFixed(0).padStart(6)} → ${(row.after.size / 1024).toFixed(0).padStart(6)} KB  ${row.name}`,
		);
	}
}
