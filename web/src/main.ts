import { Connection, type Status } from "./connection.js";
import { ConversationView } from "./conversation.js";
import { Dialogs } from "./dialogs.js";
import { choose, fillSelect, toast, ui } from "./page.js";
import { drawExtensionUi, drawQueue } from "./panels.js";
import { isRec, type Rec, recs, str } from "./records.js";
import { SessionView } from "./session-view.js";
import { SessionList } from "./sessions.js";

const connection = new Connection();
const view = new SessionView();
const conversation = new ConversationView(ui.conversation, view);
let readOnly = false;
/** Counts fresh attaches: an answer for an earlier one (the person switched again) is dropped. */
let generation = 0;
let starting = false;
/** The attach whose conversation is still to be asked for (its request failed). */
let snapshotDue: number | undefined;

type Result = { ok: true; data: unknown } | { ok: false };

/** An error as a person reads it: an answer that came second is no failure of theirs. */
function readable(message: string): string {
	if (/^No open (tool approval request|dialog) with id/.test(message)) return "Already answered elsewhere.";
	return message;
}

/** Runs a command; a failure is shown, never thrown. */
async function call(type: string, fields: Rec = {}): Promise<Result> {
	try {
		return { ok: true, data: await connection.request(type, fields) };
	} catch (error) {
		toast(readable(error instanceof Error ? error.message : String(error)));
		return { ok: false };
	}
}

const dialogs = new Dialogs(ui.dialogs, {
	approve: async (id, decision) => (await call("tool_approval_response", { requestId: id, decision })).ok,
	answer: (record) => connection.post(record),
});

const sessions = new SessionList(ui.sessions, {
	list: async () => {
		try {
			const data = await connection.request("list_sessions");
			return isRec(data) ? recs(data.sessions) : [];
		} catch {
			// Disconnected: it is asked again after the reconnect (the status says so meanwhile).
			return undefined;
		}
	},
	current: () => connection.sessionId,
	open: (id) => void open(id),
	// A page with no session (an observer's, before any ran) attaches to the first that runs.
	loaded: (list) => {
		if (connection.sessionId === undefined && !starting && list.some((session) => session.live === true)) void start();
	},
});

const STATUS_TEXT: Record<Status, string> = {
	login: "Not logged in",
	reconnecting: "Reconnecting…",
	connecting: "Connecting…",
	open: "",
};

connection.onStatus = (status, detail) => {
	ui.status.textContent = STATUS_TEXT[status];
	ui.status.dataset.status = status;
	document.body.dataset.connection = status;
	if (status === "login") {
		// Nothing of the session stays on a page that is not logged in.
		connection.sessionId = undefined;
		view.begin({});
		refresh();
		const why = detail ? `<p>${detail}</p>` : "<p>This page needs a login.</p>";
		conversation.message(
			`${why}<p>Open the login link <code>atomic serve</code> printed when it started, or <a href="/login">log in with a token</a>.</p>`,
		);
	}
};

connection.onReady = (ready) => {
	const client = isRec(ready.client) ? ready.client : {};
	readOnly = client.role === "observer";
	ui.who.textContent = client.name === undefined ? "" : `${str(client.name)} (${str(client.role)})`;
	document.body.classList.toggle("read-only", readOnly);
	ui.readOnlyNote.hidden = !readOnly;
	for (const control of [ui.message, ui.send, ui.newSession, ui.rename, ui.fork, ui.model, ui.thinking]) {
		control.disabled = readOnly;
	}
	ui.approvalMode.disabled = readOnly;
	ui.sandboxMode.disabled = readOnly;
	if (connection.sessionId === undefined) void start();
	refresh();
};

connection.onAttached = (data, resumed) => {
	// After a drop, the missed events follow and bring the view up to date; a fresh attach starts over.
	if (!resumed) view.begin(isRec(data.state) ? data.state : {}, data.inProgress);
	else {
		sessions.refresh();
		if (snapshotDue === generation) void loadConversation(generation);
	}
	dialogs.redraw();
	refresh();
};

connection.onLost = (error) => {
	toast(`The session is no longer on the server (${error.message}): opening another.`);
	connection.sessionId = undefined;
	void start();
};

connection.onEvent = (event) => {
	const hadModel = modelKey(view.state);
	const notice = view.apply(event);
	if (notice) toast(readable(notice));
	switch (event.type) {
		case "agent_settled":
			sessions.refresh();
			void refreshUsage();
			break;
		case "session_changed":
			// A fork, a new session or a switch in this session's runtime (from any tab): it is another conversation.
			if (typeof event.sessionId === "string") connection.follow(event.sessionId);
			void reload();
			break;
		case "resync":
			void loadPickers();
			void refreshUsage();
			break;
		case "state_changed":
			if (isRec(event.changes) && "sessionName" in event.changes) sessions.refresh();
			if (modelKey(view.state) !== hadModel) void loadThinkingLevels();
			break;
		case "extension_ui_request":
			uiRequest(event);
			break;
	}
	refresh();
};

/** The fire-and-forget UI requests that change the page itself. */
function uiRequest(event: Rec): void {
	if (event.method === "setTitle" && typeof event.title === "string") document.title = event.title;
	if (event.method === "set_editor_text" && typeof event.text === "string" && !readOnly) ui.message.value = event.text;
}

/** Attaches at start: the session named in the address, else the most recent live one, else a new one. */
async function start(): Promise<void> {
	if (starting) return;
	starting = true;
	try {
		const list = await sessions.load();
		const wanted = decodeURIComponent(location.hash.slice(1));
		const named = wanted === "" ? undefined : list.find((session) => session.id === wanted);
		const live = list.find((session) => session.live === true);
		const pick = named ?? live;
		if (pick) await open(str(pick.id));
		else if (!readOnly) await open(null);
		else conversation.message("<p>No session is running yet. A session opened by a controller shows here.</p>");
	} finally {
		starting = false;
	}
}

/** Attaches to a session (null: a new one) and loads its conversation. */
async function open(sessionId: string | null): Promise<void> {
	const mine = ++generation;
	try {
		await connection.attach(sessionId);
	} catch (error) {
		toast(error instanceof Error ? error.message : String(error));
		return;
	}
	if (mine !== generation) return;
	conversation.message();
	history.replaceState(null, "", `#${encodeURIComponent(connection.sessionId ?? "")}`);
	await loadConversation(mine);
	sessions.refresh();
	void loadPickers();
	void refreshUsage();
}

/**
 * The conversation as the server holds it, merged with the events that came since the attach.
 * When the connection drops before the answer, it is asked again once the page is back.
 */
async function loadConversation(mine: number): Promise<void> {
	snapshotDue = undefined;
	const result = await call("get_messages");
	if (mine !== generation) return;
	if (!result.ok || !isRec(result.data) || !Array.isArray(result.data.messages)) {
		snapshotDue = mine;
		return;
	}
	view.snapshot(result.data.messages);
	refresh();
}

/** The session was replaced in its runtime: the same attach, another conversation. */
async function reload(): Promise<void> {
	const mine = ++generation;
	view.begin(view.state);
	history.replaceState(null, "", `#${encodeURIComponent(connection.sessionId ?? "")}`);
	await loadConversation(mine);
	sessions.refresh();
	void refreshUsage();
}

function modelKey(state: Rec): string {
	return isRec(state.model) ? `${str(state.model.provider)}/${str(state.model.id)}` : "";
}

/** The session's tokens, cost and context use, beside the pickers. */
async function refreshUsage(): Promise<void> {
	const result = await call("get_session_stats");
	const stats = result.ok && isRec(result.data) ? result.data : undefined;
	if (!stats || !isRec(stats.tokens)) return;
	const total = typeof stats.tokens.total === "number" ? stats.tokens.total : 0;
	const cost = typeof stats.cost === "number" ? stats.cost : 0;
	const parts = [`${total.toLocaleString("en")} tokens`];
	if (cost > 0) parts.push(`$${cost.toFixed(4)}`);
	ui.usage.dataset.totals = parts.join(" · ");
	if (isRec(stats.contextUsage)) view.context = stats.contextUsage;
	refresh();
}

async function loadPickers(): Promise<void> {
	const result = await call("get_available_models");
	const models = result.ok && isRec(result.data) ? recs(result.data.models) : [];
	fillSelect(
		ui.model,
		models.map((model) => {
			const value = `${str(model.provider)}/${str(model.id)}`;
			return { value, label: `${str(model.name, value)} (${str(model.provider)})` };
		}),
		modelKey(view.state),
	);
	await loadThinkingLevels();
}

async function loadThinkingLevels(): Promise<void> {
	const result = await call("get_available_thinking_levels");
	const levels = result.ok && isRec(result.data) && Array.isArray(result.data.levels) ? result.data.levels : [];
	const names = levels.filter((level) => typeof level === "string");
	fillSelect(
		ui.thinking,
		names.map((level) => ({ value: level, label: level })),
		str(view.state.thinkingLevel),
	);
}

/** Brings every control in line with the view (cheap: called after every event). */
function refresh(): void {
	conversation.schedule();
	ui.conversation.setAttribute("aria-busy", String(view.loadingConversation));
	dialogs.show(view.approvals, view.dialogs, readOnly);
	const state = view.state;
	const attached = connection.sessionId !== undefined;
	ui.title.textContent = str(state.sessionName) || (attached ? "Untitled session" : "No session");
	const busy = state.isStreaming === true || state.isCompacting === true;
	ui.stop.disabled = readOnly || !busy;
	ui.whileStreaming.hidden = readOnly || state.isStreaming !== true;
	choose(ui.model, modelKey(state));
	choose(ui.thinking, str(state.thinkingLevel));
	ui.approvalLabel.hidden = typeof state.approvalMode !== "string";
	if (typeof state.approvalMode === "string") choose(ui.approvalMode, state.approvalMode);
	const sandbox = isRec(state.sandbox) ? state.sandbox : undefined;
	ui.sandboxLabel.hidden = sandbox === undefined || (sandbox.available !== true && sandbox.mode === "off");
	if (sandbox) {
		choose(ui.sandboxMode, str(sandbox.mode));
		ui.sandboxLabel.title = sandbox.available === true ? "" : `The sandbox cannot be made here: ${str(sandbox.reason)}`;
	}
	refreshUsageLine();
	drawQueue(view, readOnly, () => void call("clear_queue"));
	drawExtensionUi(view);
}

function refreshUsageLine(): void {
	const parts = [ui.usage.dataset.totals ?? ""];
	const context = view.context;
	if (context && typeof context.percent === "number") parts.push(`context ${context.percent.toFixed(0)}%`);
	ui.usage.textContent = parts.filter(Boolean).join(" · ");
}

function send(): void {
	const text = ui.message.value;
	if (readOnly || text.trim() === "") return;
	const fields: Rec = { message: text };
	if (view.state.isStreaming === true) {
		const picked = ui.composer.querySelector<HTMLInputElement>('input[name="behavior"]:checked');
		fields.streamingBehavior = picked?.value === "followUp" ? "followUp" : "steer";
	}
	ui.message.value = "";
	void call("prompt", fields).then((result) => {
		// Not taken: the text comes back, unless the person typed something else meanwhile.
		if (!result.ok && ui.message.value === "") ui.message.value = text;
	});
}

function stop(): void {
	if (readOnly) return;
	void call("abort");
}

ui.composer.addEventListener("submit", (event) => {
	event.preventDefault();
	send();
});
ui.message.addEventListener("keydown", (event) => {
	if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
		event.preventDefault();
		send();
	}
});
document.addEventListener("keydown", (event) => {
	if (event.key !== "Escape" || dialogs.modal) return;
	if (view.state.isStreaming === true || view.state.isCompacting === true) stop();
});
ui.stop.addEventListener("click", stop);
ui.newSession.addEventListener("click", () => void open(null));
ui.rename.addEventListener("click", () => {
	dialogs.open({
		method: "input",
		title: "Rename the session",
		prefill: str(view.state.sessionName),
		done: (name) => {
			refresh();
			if (name !== undefined && name.trim() !== "") void call("set_session_name", { name: name.trim() });
		},
	});
	refresh();
});
ui.fork.addEventListener("click", () => void forkFromMessage());
ui.model.addEventListener("change", () => {
	const [provider = "", ...rest] = ui.model.value.split("/");
	void call("set_model", { provider, modelId: rest.join("/") }).then(refresh);
});
ui.thinking.addEventListener(
	"change",
	() => void call("set_thinking_level", { level: ui.thinking.value }).then(refresh),
);
ui.approvalMode.addEventListener(
	"change",
	() => void call("set_approval_mode", { mode: ui.approvalMode.value }).then(refresh),
);
ui.sandboxMode.addEventListener(
	"change",
	() => void call("set_sandbox_mode", { mode: ui.sandboxMode.value }).then(refresh),
);

/** Fork: pick one of the user messages; a new session starts from just before it, with its text in the box. */
async function forkFromMessage(): Promise<void> {
	const result = await call("get_fork_messages");
	const messages = result.ok && isRec(result.data) ? recs(result.data.messages) : [];
	if (messages.length === 0) {
		toast("No message to fork from yet.");
		return;
	}
	const options = messages.map((message, index) => `${index + 1}. ${str(message.text).slice(0, 100)}`);
	dialogs.open({
		method: "select",
		title: "Fork from which message?",
		options,
		done: (choice) => {
			refresh();
			const entryId = choice === undefined ? undefined : messages[options.indexOf(choice)]?.entryId;
			if (typeof entryId !== "string") return;
			void call("fork", { entryId }).then((forked) => {
				// The new session holds what came before the message; the message itself is offered again.
				if (forked.ok && isRec(forked.data) && typeof forked.data.text === "string" && ui.message.value === "") {
					ui.message.value = forked.data.text;
				}
			});
		},
	});
	refresh();
}

connection.connect();
