// Maps performance.now() readings to CLOCK_MONOTONIC microseconds, the clock V8 stamps CPU profile
// samples with on Linux, so a bench interval can be cut out of an agent's `--cpu-prof` profile.
import { performance } from "node:perf_hooks";

const offsetMicros = Number(process.hrtime.bigint() / 1000n) - performance.now() * 1000;

export function monotonicMicros(performanceMs) {
	return Math.round(performanceMs * 1000 + offsetMicros);
}
