import { resolve } from "node:path";
import { messageText } from "../../agent/messages.js";
import { checkImportable, copyIntoSessionDir } from "../../session/import.js";
import { listSessions, type SessionInfo } from "../../session/listing.js";
import type { Session } from "../../session/session.js";
import { isKnownEntry } from "../../session/types.js";
import type { ExtensionBridge } from "../extensions/bridge.js";
import type { SessionFactory } from "../facade/api-types.js";
import type { AgentSessionEvent } from "../facade/events.js";
import type { AbortTree } from "../runs/abort-tree.js";
import type { Conversation } from "./conversation.js";
import type { CurrentSession } from "./current-session.js";

export type Replacement = "new" | "switch" | "fork" | "clone" | "import";

/** The reason extensions see in session_shutdown / session_start for each replacement. */
const EXTENSION_REASONS = { new: "new", switch: "resume", fork: "fork", clone: "fork", import: "import" } as const;

export interface SessionSwitcherHost {
	factory: SessionFactory;
	extensions: ExtensionBridge;
	current: CurrentSession;
	/** Whatever runs in the current session (a run, a compaction) is ended before it is replaced. */
	tree: AbortTree;
	conversation: Conversation;
	queues: { clearQueues(): unknown };
	models: { resolveFor(session: Session): void };
	toolsAndPrompt: { setCwd(cwd: string): void };
	resources: { reload(cwd: string): void };
	events: { emit(event: AgentSessionEvent): unknown };
}

/**
 * The operations that replace the current session: new, switch, fork, clone, import. Each asks
 * extensions first (they may cancel: `{cancelled: true}`), ends the current run, lets extensions
 * close (session_shutdown), builds the new session (a failure there changes nothing else),
 * adopts it and announces it (session_start). Running bash requests keep their session.
 */
export class SessionSwitcher {
	constructor(private readonly host: SessionSwitcherHost) {}

	async newSession(options: { parentSession?: string } = {}): Promise<{ cancelled: boolean }> {
		if (!(await this.host.extensions.allowSwitch("new"))) return { cancelled: true };
		await this.replace("new", () =>
			this.host.factory.create({ cwd: this.host.current.cwd, parentSession: options.parentSession }),
		);
		return { cancelled: false };
	}

	async switchSession(path: string): Promise<{ cancelled: boolean }> {
		const target = resolve(this.host.current.cwd, path);
		if (!(await this.host.extensions.allowSwitch("resume", target))) return { cancelled: true };
		await this.replace("switch", () => this.open(target));
		return { cancelled: false };
	}

	/** Returns the text of the message forked from, also when an extension cancelled the fork. */
	async fork(entryId: string): Promise<{ text: string; cancelled: boolean }> {
		const source = this.host.current.session.getEntry(entryId);
		if (!source || !isKnownEntry(source) || source.type !== "message" || source.message.role !== "user")
			throw new Error("Invalid entry ID for forking");
		const text = messageText(source.message);
		if (!(await this.host.extensions.allowFork(entryId, "before"))) return { text, cancelled: true };
		await this.replace("fork", () => this.host.current.session.forkBefore(entryId).session);
		return { text, cancelled: false };
	}

	async clone(): Promise<{ cancelled: boolean }> {
		const session = this.host.current.session;
		if (!(await this.host.extensions.allowFork(session.leafId ?? undefined, "at"))) return { cancelled: true };
		await this.replace("clone", () => this.host.current.session.cloneAtLeaf());
		return { cancelled: false };
	}

	/**
	 * Copies a session file into the session directory and switches to it. `cwdOverride` replaces
	 * the working directory its header names.
	 */
	async importSession(inputPath: string, cwdOverride?: string): Promise<{ cancelled: boolean }> {
		const source = resolve(this.host.current.cwd, inputPath);
		checkImportable(source);
		const directory = this.host.factory.directory(this.host.current.cwd);
		if (directory === undefined) throw new Error("Cannot import a session into an in-memory session (--no-session)");
		if (!(await this.host.extensions.allowSwitch("import", source))) return { cancelled: true };
		await this.replace("import", () => this.host.factory.open(copyIntoSessionDir(source, directory), { cwdOverride }));
		return { cancelled: false };
	}

	/** The sessions stored for `cwd` (default: the current folder), most recently active first. */
	storedSessions(cwd = this.host.current.cwd): SessionInfo[] {
		const directory = this.host.factory.directory(resolve(this.host.current.cwd, cwd));
		return directory === undefined ? [] : listSessions(directory, resolve(this.host.current.cwd, cwd));
	}

	private open(target: string): Session {
		const current = this.host.current.slot;
		// Reopening the current file: release it first (one writer per file).
		if (current.session.file === target) current.retire();
		return this.host.factory.open(target, { cwd: this.host.current.cwd });
	}

	private async replace(kind: Replacement, create: () => Session): Promise<void> {
		const { host } = this;
		if (host.tree.busy) await host.tree.abortAll();
		host.conversation.flushPendingBash();
		const previousFile = host.current.session.file;
		const session = create();
		const reason = EXTENSION_REASONS[kind];
		await host.extensions.leaving(reason);
		this.adopt(session, kind);
		await host.extensions.started(reason, previousFile);
	}

	/**
	 * Makes `session` current: its working directory, its conversation, and the model, level and
	 * startup condition resolved for it as a process started on it would; queued messages of the
	 * session left are dropped.
	 */
	private adopt(session: Session, kind: Replacement): void {
		const { host } = this;
		const cwdChanged = session.cwd !== host.current.cwd;
		host.current.replace(session);
		host.queues.clearQueues();
		if (cwdChanged) {
			host.toolsAndPrompt.setCwd(session.cwd);
			host.resources.reload(session.cwd);
		}
		host.models.resolveFor(session);
		host.conversation.rebuild();
		host.events.emit({ type: "session_changed", reason: kind, sessionId: session.id, sessionFile: session.file });
	}
}
