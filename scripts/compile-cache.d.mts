// Types of compile-cache.mjs for its tests.
export interface PrimeRun {
	name: string;
	args: string[];
	input: string;
	files?: Record<string, unknown>;
	done(output: { stdout: string; stderr: string }): boolean;
	respond?(output: { stdout: string; stderr: string }, cwd: string): string | undefined;
	offline?: boolean;
}
export function primeRuns(baseUrl: string): PrimeRun[];
export function primeRun(cli: string, run: PrimeRun, deadlineMs?: number): Promise<string | undefined>;
export function primeCompileCache(cli: string, runs: PrimeRun[], deadlineMs?: number): Promise<string[]>;
export function writeCompileCache(output: unknown[], produced: Set<string>): Promise<void>;
