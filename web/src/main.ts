import { escapeHtml } from "../../src/export/html-text.js";
import { Connection, type Status } from "./connection.js";
import { ConversationView } from "./conversation.js";
import { Dialogs } from "./dialogs.js";
import { isRec, type Rec, recs, str } from "./records.js";
import { SessionView } from "./session-view.js";

function element<T extends HTMLElement>(id: string, kind: new () => T): T {
	const found = document.getElementById(id);
	if (!(found instanceof kind)) throw new Error(`the page has no #${id}`);
	return found;
}

const ui = {
	sessions: element("sessions", HTMLUListElement),
	newSession: element("new-session", HTMLButtonElement),
	title: element("session-title", HTMLHeadingElement),
	rename: element("rename", HTMLButtonElement),
	fork: element("fork", HTMLButtonElement),
	status: element("status", HTMLSpanElement),
	model: element("model", HTMLSelectElement),
	thinking: element("thinking", HTMLSelectElement),
	approvalMode: element("approval-mode", HTMLSelectElement),
	sandboxMode: element("sandbox-mode", HTMLSelectElement),
	sandboxLabel: element("sandbox-label", HTMLLabelElement),
	usage: element("usage", HTMLSpanElement),
	conversation: element("conversation", HTMLDivElement),
	queue: element("queue", HTMLDivElement),
	composer: element("composer", HTMLFormElement),
	message: element("message", HTMLTextAreaElement),
	whileStreaming: element("while-streaming", HTMLSpanElement),
	send: element("send", HTMLButtonElement),
	stop: element("stop", HTMLButtonElement),
	readOnlyNote: element("read-only", HTMLParagraphElement),
	dialogs: element("dialogs", HTMLDivElement),
	toasts: element("toasts", HTMLDivElement),
};

const connection = new Connection();
const view = new SessionView();
const conversation = new ConversationView(ui.conversation, view);
let readOnly = false;

function toast(text: string): void {
	const item = document.createElement("div");
	item.className = "toast";
	item.textContent = text;
	ui.toasts.append(item);
	setTimeout(() => item.remove(), 6000);
}

/** Runs a command; a failure is shown, never thrown. */
async function run(type: string, fields: Rec = {}): Promise<unknown> {
	try {
		return await connection.request(type, fields);
	} catch (error) {
		toast(error instanceof Error ? error.message : String(error));
		return undefined;
	}
}

const dialogs = new Dialogs(ui.dialogs, {
	approve: (id, decision) => void run("tool_approval_response", { requestId: id, decision }),
	answer: (record) => connection.post(record),
});

function statusText(status: Status): string {
	if (status === "login") return "Not logged in";
	if (status === "reconnecting") return "Reconnecting…";
	if (status === "connecting") return "Connecting…";
	return "";
}

connection.onStatus = (status) => {
	ui.status.textContent = statusText(status);
	ui.status.dataset.status = status;
	if (status === "login") {
		ui.conversation.innerHTML = `<div class="login"><p>This page needs a login.</p><p>Open the login link <code>atomic serve</code> printed when it started, or <a href="/login">log in with a token</a>.</p></div>`;
	}
};

connection.onReady = (ready) => {
	const client = isRec(ready.client) ? ready.client : {};
	readOnly = client.role === "observer";
	document.body.classList.toggle("read-only", readOnly);
	ui.readOnlyNote.hidden = !readOnly;
	for (const control of [
		ui.message,
		ui.send,
		ui.stop,
		ui.newSession,
		ui.rename,
		ui.fork,
		ui.model,
		ui.thinking,
		ui.approvalMode,
		ui.sandboxMode,
	]) {
		control.disabled = readOnly;
	}
	if (connection.sessionId === undefined) void start();
};

connection.onAttached = (data, resumed) => {
	if (!resumed) view.reset(isRec(data.state) ? data.state : {}, []);
	else if (isRec(data.state)) view.state = data.state;
	refresh();
};

connection.onEvent = (event) => {
	const notice = view.apply(event);
	if (notice) toast(notice);
	if (event.type === "agent_settled") {
		void refreshSessions();
		void refreshUsage();
	}
	if (event.type === "session_changed") void loadMessages();
	refresh();
};

/** Attaches at start: the most recent live session, else a new one. */
async function start(): Promise<void> {
	const sessions = await refreshSessions();
	const live = sessions.find((session) => session.live === true);
	await open(live ? str(live.id) : null);
}

async function open(sessionId: string | null): Promise<void> {
	try {
		await connection.attach(sessionId);
	} catch (error) {
		toast(error instanceof Error ? error.message : String(error));
		return;
	}
	await loadMessages();
	await Promise.all([refreshSessions(), loadPickers(), refreshUsage()]);
}

async function loadMessages(): Promise<void> {
	const data = await run("get_messages");
	const state = await run("get_state");
	if (isRec(data) && Array.isArray(data.messages)) view.reset(isRec(state) ? state : view.state, data.messages);
	// A fork or a new session of this runtime has another id: a reconnect attaches to that one.
	if (isRec(state) && typeof state.sessionId === "string") connection.sessionId = state.sessionId;
	refresh();
}

async function refreshSessions(): Promise<Rec[]> {
	const data = await run("list_sessions");
	const sessions = isRec(data) ? recs(data.sessions) : [];
	ui.sessions.innerHTML = sessions
		.map((session) => {
			const id = str(session.id);
			const current = id === connection.sessionId;
			const name = str(session.name) || str(session.firstMessage) || "(new session)";
			const state = session.streaming === true ? "streaming" : session.live === true ? "live" : "stored";
			return `<li><button type="button" class="session${current ? " current" : ""}" data-id="${escapeHtml(id)}"${current ? ' aria-current="true"' : ""}><span class="session-name">${escapeHtml(name)}</span><span class="session-meta">${escapeHtml(str(session.cwd))} · ${state}</span></button></li>`;
		})
		.join("");
	for (const button of ui.sessions.querySelectorAll<HTMLButtonElement>("button[data-id]")) {
		button.addEventListener("click", () => void open(button.dataset.id ?? null));
	}
	return sessions;
}

/** The session's tokens and cost so far, beside the pickers. */
async function refreshUsage(): Promise<void> {
	const stats = await run("get_session_stats");
	if (!isRec(stats) || !isRec(stats.tokens)) return;
	const total = typeof stats.tokens.total === "number" ? stats.tokens.total : 0;
	const cost = typeof stats.cost === "number" ? stats.cost : 0;
	const context =
		isRec(stats.contextUsage) && typeof stats.contextUsage.percent === "number"
			? stats.contextUsage.percent
			: undefined;
	const parts = [`${total.toLocaleString("en")} tokens`];
	if (cost > 0) parts.push(`$${cost.toFixed(4)}`);
	if (context !== undefined) parts.push(`context ${context.toFixed(0)}%`);
	ui.usage.textContent = parts.join(" · ");
}

async function loadPickers(): Promise<void> {
	const models = await run("get_available_models");
	const current = isRec(view.state.model) ? view.state.model : {};
	const list = isRec(models) ? recs(models.models) : [];
	ui.model.innerHTML = list
		.map((model) => {
			const value = `${str(model.provider)}/${str(model.id)}`;
			const selected = model.id === current.id && model.provider === current.provider ? " selected" : "";
			return `<option value="${escapeHtml(value)}"${selected}>${escapeHtml(str(model.name, value))}</option>`;
		})
		.join("");
	const levels = await run("get_available_thinking_levels");
	const names =
		isRec(levels) && Array.isArray(levels.levels) ? levels.levels.filter((level) => typeof level === "string") : [];
	ui.thinking.innerHTML = names
		.map((level) => `<option${level === view.state.thinkingLevel ? " selected" : ""}>${escapeHtml(level)}</option>`)
		.join("");
	refresh();
}

/** Brings every control in line with the view. */
function refresh(): void {
	conversation.schedule();
	dialogs.show(view.approvals, view.dialogs, readOnly);
	const state = view.state;
	ui.title.textContent = str(state.sessionName) || (connection.sessionId ? "Session" : "No session");
	const streaming = state.isStreaming === true;
	ui.stop.disabled = readOnly || !(streaming || state.isCompacting === true);
	ui.whileStreaming.hidden = !streaming || readOnly;
	if (typeof state.approvalMode === "string") ui.approvalMode.value = state.approvalMode;
	const sandbox = isRec(state.sandbox) ? state.sandbox : undefined;
	ui.sandboxLabel.hidden = sandbox === undefined || sandbox.available !== true;
	if (sandbox && typeof sandbox.mode === "string") ui.sandboxMode.value = sandbox.mode;
	const { steering, followUp } = view.queue;
	ui.queue.hidden = steering.length + followUp.length === 0;
	ui.queue.innerHTML = `<span class="queue-title">Queued</span><ul>${[
		...steering.map((text) => `<li>steer: ${escapeHtml(text)}</li>`),
		...followUp.map((text) => `<li>follow-up: ${escapeHtml(text)}</li>`),
	].join("")}</ul>${readOnly ? "" : '<button type="button" id="clear-queue" class="quiet">Clear queue</button>'}`;
	document.getElementById("clear-queue")?.addEventListener("click", () => void run("clear_queue"));
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
	void run("prompt", fields).then((result) => {
		if (result === undefined && ui.message.value === "") ui.message.value = text;
	});
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
	if (event.key === "Escape" && !readOnly && ui.dialogs.childElementCount === 0 && view.state.isStreaming === true) {
		void run("abort");
	}
});
ui.stop.addEventListener("click", () => void run("abort"));
ui.newSession.addEventListener("click", () => void open(null));
ui.rename.addEventListener("click", () => {
	const name = window.prompt("Session name", str(view.state.sessionName));
	if (name !== null && name.trim() !== "")
		void run("set_session_name", { name: name.trim() }).then(() => refreshSessions());
});
ui.fork.addEventListener("click", () => void forkFromMessage());
ui.model.addEventListener("change", () => {
	const [provider, ...rest] = ui.model.value.split("/");
	void run("set_model", { provider, modelId: rest.join("/") }).then(() => loadPickers());
});
ui.thinking.addEventListener("change", () => void run("set_thinking_level", { level: ui.thinking.value }));
ui.approvalMode.addEventListener("change", () => void run("set_approval_mode", { mode: ui.approvalMode.value }));
ui.sandboxMode.addEventListener("change", () => void run("set_sandbox_mode", { mode: ui.sandboxMode.value }));

/** Fork: pick one of the user messages; a new session starts from just before it. */
async function forkFromMessage(): Promise<void> {
	const data = await run("get_fork_messages");
	const messages = isRec(data) ? recs(data.messages) : [];
	if (messages.length === 0) {
		toast("No message to fork from yet.");
		return;
	}
	const id = "fork-dialog";
	view.dialogs.set(id, {
		type: "extension_ui_request",
		id,
		method: "select",
		title: "Fork from which message?",
		options: messages.map((message, index) => `${index + 1}. ${str(message.text).slice(0, 80)}`),
		fork: messages.map((message) => str(message.entryId)),
	});
	refresh();
}

// The fork picker is answered here, not by the server.
const post = connection.post.bind(connection);
connection.post = (record: Rec) => {
	if (record.id !== "fork-dialog") {
		post(record);
		return;
	}
	const picker = view.dialogs.get("fork-dialog");
	view.dialogs.delete("fork-dialog");
	refresh();
	const options = Array.isArray(picker?.options) ? picker.options : [];
	const entries = Array.isArray(picker?.fork) ? picker.fork : [];
	const entryId = entries[options.indexOf(record.value)];
	if (typeof entryId === "string") {
		void run("fork", { entryId }).then(async () => {
			await loadMessages();
			await refreshSessions();
		});
	}
};

connection.connect();
