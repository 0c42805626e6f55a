// Module hooks that append the URL of every module Node loads to the file named by
// ATOMIC_TEST_LOAD_LOG: what a process loaded, for tests of lazy loading.
import { appendFileSync } from "node:fs";

export async function load(url, context, nextLoad) {
	const log = process.env.ATOMIC_TEST_LOAD_LOG;
	if (log) appendFileSync(log, `${url}\n`);
	return nextLoad(url, context);
}
