// CPU time of one process, read from /proc (Linux only).
import { readFileSync } from "node:fs";

/** The clock ticks of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICK_MS = 10;

/** User plus system CPU time of `pid` so far, in ms (10 ms resolution). */
export function cpuMs(pid) {
	const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
	// The command name may contain spaces and parentheses: fields resume after the last ")".
	const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
	return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}
