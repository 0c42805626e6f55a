// Memory figures of a process tree, read from /proc (Linux only).
import { readdirSync, readFileSync } from "node:fs";

/** A /proc file's text, or undefined when its process has exited (often a short-lived bash child). */
function readProcFile(path) {
	try {
		return readFileSync(path, "utf8");
	} catch (error) {
		if (error instanceof Error && "code" in error && (error.code === "ENOENT" || error.code === "ESRCH"))
			return undefined;
		throw error;
	}
}

/** A `Vm*:` field of /proc/<pid>/status in kB, or 0 when the process is gone. */
export function statusKb(pid, field) {
	const text = readProcFile(`/proc/${pid}/status`);
	if (text === undefined) return 0;
	const match = new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(text);
	return match ? Number(match[1]) : 0;
}

/** Every descendant pid of `pid`, from the parent links in /proc/<n>/stat. */
export function descendants(pid) {
	const children = new Map();
	for (const name of readdirSync("/proc")) {
		if (!/^\d+$/.test(name)) continue;
		const stat = readProcFile(`/proc/${name}/stat`);
		if (stat === undefined) continue;
		// The command name may contain spaces and parentheses: fields resume after the last ")".
		const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
		const list = children.get(parent) ?? [];
		list.push(Number(name));
		children.set(parent, list);
	}
	const found = [];
	const pending = [pid];
	while (pending.length > 0) {
		const current = pending.pop();
		for (const child of children.get(current) ?? []) {
			found.push(child);
			pending.push(child);
		}
	}
	return found;
}

/** Resident set size of the process and all its descendants, in kB. */
export function treeRssKb(pid) {
	return [pid, ...descendants(pid)].reduce((sum, member) => sum + statusKb(member, "VmRSS"), 0);
}
