import { type Rec, str } from "./records.js";

export interface SessionSource {
	/** The server's sessions (`list_sessions`): the live ones, then the stored ones; undefined when it cannot be asked now. */
	list(): Promise<Rec[] | undefined>;
	/** The id of the attached session. */
	current(): string | undefined;
	open(id: string): void;
	/** Told each list as it comes. */
	loaded(sessions: Rec[]): void;
}

/** How often the list is asked for again while the page is shown (other tabs and clients start sessions too). */
const REFRESH_MS = 15_000;

/** The "Sessions" list: one button per session, the attached one marked as current. */
export class SessionList {
	private pending: Promise<Rec[]> | undefined;
	private again = false;
	private shown: Rec[] = [];

	constructor(
		private readonly host: HTMLUListElement,
		private readonly source: SessionSource,
	) {
		setInterval(() => {
			if (document.visibilityState === "visible") this.refresh();
		}, REFRESH_MS);
		window.addEventListener("focus", () => this.refresh());
	}

	/** Asks for the list and draws it; one request at a time (a call meanwhile asks once more after it). */
	load(): Promise<Rec[]> {
		if (this.pending) {
			this.again = true;
			return this.pending;
		}
		this.pending = this.source.list().then((answer) => {
			// Not connected: the list shown stays until it can be asked again.
			const sessions = answer ?? this.shown;
			if (answer) {
				this.shown = answer;
				this.draw(answer);
			}
			this.pending = undefined;
			if (answer) this.source.loaded(answer);
			if (this.again) {
				this.again = false;
				this.refresh();
			}
			return sessions;
		});
		return this.pending;
	}

	refresh(): void {
		void this.load();
	}

	private draw(sessions: Rec[]): void {
		const current = this.source.current();
		this.host.replaceChildren(
			...sessions.map((session) => {
				const id = str(session.id);
				const item = document.createElement("li");
				const button = document.createElement("button");
				button.type = "button";
				button.className = "session";
				button.dataset.id = id;
				if (id === current) button.setAttribute("aria-current", "true");
				const name = document.createElement("span");
				name.className = "session-name";
				name.textContent = str(session.name) || str(session.firstMessage) || "Untitled session";
				const state = session.streaming === true ? "streaming" : session.live === true ? "live" : "stored";
				const meta = document.createElement("span");
				meta.className = "session-meta";
				const dot = document.createElement("span");
				dot.className = `dot ${state}`;
				dot.setAttribute("aria-hidden", "true");
				meta.append(dot, `${state} · ${str(session.cwd)}`);
				button.append(name, meta);
				button.addEventListener("click", () => this.source.open(id));
				item.append(button);
				return item;
			}),
		);
	}
}
