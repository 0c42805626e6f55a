// Types of prime-server.mjs for the tests of the code cache's priming.
export const PRIME_REPLY: string;
export function startPrimeServer(): Promise<{ baseUrl: string; close(): Promise<void> }>;
