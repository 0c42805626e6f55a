import {
	type AgentContext,
	type ClientCapabilities,
	CreateElicitationResponse,
	type ElicitationPropertySchema,
	type PermissionOption,
	type SessionUpdate,
} from "@agentclientprotocol/sdk";
import type { ExtensionUiBackend, ExtensionUiDialogOptions } from "../extensions/ui-types.js";
import { randomUuid } from "../platform/random.js";
import { textBlock } from "./tool-calls.js";
import { errorText } from "./update-queue.js";

export interface DialogHost {
	client: AgentContext;
	capabilities: ClientCapabilities;
	sessionId(): string;
	send(update: SessionUpdate): Promise<void>;
}

const ANSWER = "answer";

/**
 * Extension dialogs in the editor. With form elicitation (`elicitation.form`) every dialog is a
 * form: select as a single-choice field, confirm as yes/no, input and editor as a text field.
 * Without it, confirm and select become a permission request (one option per choice) on a tool
 * call that shows the dialog, and input and editor resolve with nothing (they cannot be asked).
 * Notifications are notices (when the client shows them); the title is the session title; status
 * lines, widgets and editor text are not carried. Every dialog resolves with its default when
 * dismissed, timed out or cancelled, and never rejects.
 */
export class AcpDialogs implements ExtensionUiBackend {
	private readonly open = new Set<AbortController>();

	constructor(private readonly host: DialogHost) {}

	/** Dismisses every open dialog (cancel, abort, close). */
	cancelAll(): void {
		for (const controller of this.open) controller.abort();
	}

	async select(title: string, options: string[], opts?: ExtensionUiDialogOptions): Promise<string | undefined> {
		if (options.length === 0) return undefined;
		if (this.forms) {
			const answer = await this.form(title, { type: "string", title, enum: options }, opts);
			return typeof answer === "string" && options.includes(answer) ? answer : undefined;
		}
		const choices = options.map(
			(name, index): PermissionOption => ({ optionId: String(index), name, kind: "allow_once" }),
		);
		const chosen = await this.permission(title, undefined, choices, opts);
		return chosen === undefined ? undefined : options[Number(chosen)];
	}

	async confirm(title: string, message: string, opts?: ExtensionUiDialogOptions): Promise<boolean> {
		if (this.forms) {
			const answer = await this.form(`${title}\n\n${message}`, { type: "boolean", title, default: false }, opts);
			return answer === true;
		}
		const chosen = await this.permission(
			title,
			message,
			[
				{ optionId: "yes", name: "Yes", kind: "allow_once" },
				{ optionId: "no", name: "No", kind: "reject_once" },
			],
			opts,
		);
		return chosen === "yes";
	}

	async input(title: string, placeholder?: string, opts?: ExtensionUiDialogOptions): Promise<string | undefined> {
		if (!this.forms) return undefined;
		const field: ElicitationPropertySchema = { type: "string", title };
		if (placeholder) field.description = placeholder;
		const answer = await this.form(title, field, opts);
		return typeof answer === "string" ? answer : undefined;
	}

	async editor(title: string, prefill?: string): Promise<string | undefined> {
		if (!this.forms) return undefined;
		const field: ElicitationPropertySchema = { type: "string", title };
		if (prefill !== undefined) field.default = prefill;
		const answer = await this.form(title, field, {});
		return typeof answer === "string" ? answer : undefined;
	}

	notify(message: string, type?: "info" | "warning" | "error"): void {
		if (!this.host.capabilities.session?.notices) return;
		void this.host.send({ sessionUpdate: "notice", severity: type ?? "info", title: message });
	}

	setTitle(title: string): void {
		void this.host.send({ sessionUpdate: "session_info_update", title });
	}

	setStatus(): void {
		// Status lines have no place in ACP.
	}

	setWidget(): void {
		// Widgets have no place in ACP.
	}

	setEditorText(): void {
		// ACP cannot fill the editor's prompt box.
	}

	private get forms(): boolean {
		return Boolean(this.host.capabilities.elicitation?.form);
	}

	/** A signal that ends the dialog: the caller's, its timeout, or a cancel of all dialogs. */
	private dialogSignal(opts: ExtensionUiDialogOptions | undefined): { controller: AbortController; done(): void } {
		const controller = new AbortController();
		const onAbort = () => controller.abort();
		opts?.signal?.addEventListener("abort", onAbort, { once: true });
		const timer = opts?.timeout ? setTimeout(onAbort, opts.timeout) : undefined;
		this.open.add(controller);
		return {
			controller,
			done: () => {
				clearTimeout(timer);
				opts?.signal?.removeEventListener("abort", onAbort);
				this.open.delete(controller);
			},
		};
	}

	private async form(message: string, field: ElicitationPropertySchema, opts?: ExtensionUiDialogOptions) {
		if (opts?.signal?.aborted) return undefined;
		const { controller, done } = this.dialogSignal(opts);
		try {
			const response = await this.host.client.request(
				"elicitation/create",
				{
					mode: "form",
					sessionId: this.host.sessionId(),
					message,
					requestedSchema: { type: "object", properties: { [ANSWER]: field }, required: [ANSWER] },
				},
				{ cancellationSignal: controller.signal, stopWaitingOnCancel: true },
			);
			if (!CreateElicitationResponse.isAccept(response)) return undefined;
			return response.content?.[ANSWER];
		} catch (error) {
			if (!controller.signal.aborted)
				process.stderr.write(`Warning: an extension dialog failed: ${errorText(error)}\n`);
			return undefined;
		} finally {
			done();
		}
	}

	/** Asks through `session/request_permission`; the chosen option id, or undefined. */
	private async permission(
		title: string,
		message: string | undefined,
		options: PermissionOption[],
		opts?: ExtensionUiDialogOptions,
	): Promise<string | undefined> {
		if (opts?.signal?.aborted) return undefined;
		const toolCallId = `dialog-${randomUuid()}`;
		const content = message ? [{ type: "content" as const, content: textBlock(message) }] : [];
		await this.host.send({ sessionUpdate: "tool_call", toolCallId, title, kind: "other", status: "pending", content });
		const { controller, done } = this.dialogSignal(opts);
		let chosen: string | undefined;
		try {
			const response = await this.host.client.request(
				"session/request_permission",
				{
					sessionId: this.host.sessionId(),
					toolCall: { toolCallId, title, kind: "other", status: "pending" },
					options,
				},
				{ cancellationSignal: controller.signal, stopWaitingOnCancel: true },
			);
			if (response.outcome.outcome === "selected") chosen = response.outcome.optionId;
		} catch (error) {
			if (!controller.signal.aborted)
				process.stderr.write(`Warning: an extension dialog failed: ${errorText(error)}\n`);
		} finally {
			done();
		}
		const answer = options.find((option) => option.optionId === chosen);
		await this.host.send({
			sessionUpdate: "tool_call_update",
			toolCallId,
			status: answer ? "completed" : "failed",
			content: [...content, { type: "content", content: textBlock(answer ? answer.name : "(dismissed)") }],
		});
		return answer?.optionId;
	}
}
