/** The `code` of a Node.js system error (ENOENT, EISDIR...), if it has one. */
export function errorCode(error: unknown): string | undefined {
	if (error instanceof Error && "code" in error && typeof error.code === "string") return error.code;
	return undefined;
}

export function errorMessage(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}
