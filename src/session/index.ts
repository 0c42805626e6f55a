export {
	buildContextEntries,
	buildSessionContext,
	COMPACTION_PREAMBLE,
	entryMessage,
	isActiveCompaction,
	VERBATIM_COMPACTION_STRATEGY,
} from "./context.js";
export { SessionFileStore } from "./file-store.js";
export { branchedEntries } from "./fork.js";
export { readSessionHeader } from "./header-reader.js";
export { createEntryId, isValidSessionId, uuidv7 } from "./ids.js";
export { INTERRUPTED_TOOL_RESULT_TEXT, repairInterruptedToolCalls } from "./interrupted-tools.js";
export { nodeIo, type SessionIo } from "./io.js";
export { type ListOptions, listSessions, type SessionInfo } from "./listing.js";
export { type LoadedSessionFile, loadSessionFile, NotASessionFileError, type TailState } from "./load.js";
export { createHeader, type StoreOptions } from "./new-session.js";
export {
	type CreateSessionOptions,
	continueRecentSession,
	createSession,
	findRecentSession,
	findSessionById,
	inMemorySession,
	openSession,
	openSessionById,
	type SessionLocation,
	sessionDirFor,
} from "./open.js";
export { backupFilePath, defaultSessionDir, encodeCwd, sessionFileName } from "./paths.js";
export { NOT_SAVED_MESSAGE, Session } from "./session.js";
export { SESSION_INDEX_FILE } from "./session-index.js";
export {
	renderTranscript,
	TOOL_RESULT_TEXT_LIMIT,
	TRANSCRIPT_HEADERS,
	type TranscriptBlock,
	type TranscriptMode,
} from "./transcript.js";
export * from "./types.js";
export { SessionFileBusyError } from "./writer-registry.js";
