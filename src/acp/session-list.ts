import { readdirSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { type SessionInfo as AcpSessionInfo, type ListSessionsResponse, RequestError } from "@agentclientprotocol/sdk";
import type { SessionDirectories } from "../runtime/current/session-directory.js";
import { listSessions, type SessionInfo } from "../session/listing.js";

/** Sessions per `session/list` page. */
export const PAGE_SIZE = 50;
const MAX_TITLE = 120;

function subdirectories(dir: string): string[] {
	try {
		return readdirSync(dir, { withFileTypes: true })
			.filter((entry) => entry.isDirectory())
			.map((entry) => join(dir, entry.name));
	} catch (error) {
		if (error instanceof Error && "code" in error && error.code === "ENOENT") return [];
		throw error;
	}
}

function title(info: SessionInfo): string {
	const text = (info.name ?? info.firstMessage).replace(/\s+/g, " ").trim();
	return text.length > MAX_TITLE ? `${text.slice(0, MAX_TITLE - 1)}…` : text;
}

function parseCursor(cursor: string | null | undefined): number {
	if (cursor === null || cursor === undefined) return 0;
	if (!/^\d+$/.test(cursor)) throw RequestError.invalidParams({ cursor }, "cursor is not one this agent gave");
	return Number(cursor);
}

/**
 * `session/list`: the stored sessions of `cwd` (every working directory's without it), most
 * recently active first, from the session index (unchanged files are not read again), in pages
 * of PAGE_SIZE with an offset cursor.
 */
export function listAcpSessions(
	directories: SessionDirectories,
	request: { cwd?: string | null; cursor?: string | null },
): ListSessionsResponse {
	const offset = parseCursor(request.cursor);
	let infos: SessionInfo[];
	if (request.cwd) {
		if (!isAbsolute(request.cwd))
			throw RequestError.invalidParams({ cwd: request.cwd }, "cwd must be an absolute path");
		const dir = directories.forCwd(request.cwd);
		infos = dir ? listSessions(dir, request.cwd) : [];
	} else {
		infos = directories
			.all()
			.flatMap((dir) => [dir, ...subdirectories(dir)])
			.flatMap((dir) => listSessions(dir))
			.sort((a, b) => b.modified.getTime() - a.modified.getTime());
	}
	const page = infos.slice(offset, offset + PAGE_SIZE);
	const sessions = page.map(
		(info): AcpSessionInfo => ({
			sessionId: info.id,
			cwd: info.cwd,
			title: title(info),
			updatedAt: info.modified.toISOString(),
		}),
	);
	const next = offset + PAGE_SIZE;
	return next < infos.length ? { sessions, nextCursor: String(next) } : { sessions };
}
