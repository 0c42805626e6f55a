import type { Agent } from "../../agent/agent.js";
import type { AgentMessage, CustomMessage } from "../../agent/messages.js";
import type { CustomMessageInput, SendMessageOptions, SendUserMessageOptions } from "../../extensions/index.js";
import type { ImageContent, Model, TextContent } from "../../llm/types.js";
import { type ExtensionBridge, QUEUED_COMMAND_MESSAGE } from "../extensions/bridge.js";
import type { PromptOptions, StreamingBehavior } from "../facade/api-types.js";
import type { ResourceState } from "../resources/resource-state.js";
import type { AbortTree, Operation } from "./abort-tree.js";
import { userMessage } from "./messages.js";
import type { PromptRuns } from "./prompt-runs.js";

export const BUSY_PROMPT_MESSAGE =
	"Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.";
export const NO_MODEL_MESSAGE =
	"No model selected. Use set_model, --model, or configure a provider (see --list-models).";

export interface InputGateHost {
	agent: Agent;
	resources: Pick<ResourceState, "expand">;
	extensions: ExtensionBridge;
	runs: PromptRuns;
	tree: AbortTree;
	/** The model prompts go to, and why prompts are refused right now (the startup condition), if they are. */
	models: { readonly model: Model | undefined; readonly blockedReason: string | undefined };
	/** Throws when the model's provider has no credential. */
	requests: { options(model: Model): unknown };
	/** Records a message outside any run (it joins the conversation at once). */
	conversation: { append(message: AgentMessage): void };
	/** Reports a failure nobody awaits. */
	events: { warn(message: string): void };
	/** Whether a compaction runs (prompts then wait for it, queued). */
	compaction: { readonly isCompacting: boolean };
}

/**
 * The rules for taking input: prompts (extension commands run at once, the `input` hook, skill and
 * template expansion, then either a run or, while streaming, a queue as steering or follow-up),
 * steering and follow-ups, and the messages extensions send. Every refusal happens before
 * acceptance, as a thrown error; nothing is refused after.
 */
export class InputGate {
	/** Custom messages waiting for the next prompt (`deliverAs: "nextTurn"`). */
	private readonly nextTurn: CustomMessage[] = [];
	/** A prompt was queued because a compaction ran: it is delivered when the compaction ends. */
	private waitingForCompaction = false;

	constructor(private readonly host: InputGateHost) {}

	/** pause_queued_messages is in effect: every prompt is queued, even when idle, without hooks or expansion. */
	get paused(): boolean {
		return this.host.agent.holdQueues;
	}

	/** While paused, prompts are queued (even when idle) and queued messages wait. */
	pause(): void {
		this.host.agent.holdQueues = true;
	}

	/** Ends a pause; queued messages are delivered (a run starts when the agent is idle). */
	resume(): { released: boolean } {
		const released = this.paused;
		this.host.agent.holdQueues = false;
		if (released) this.deliverQueued();
		return { released };
	}

	/**
	 * A manual compaction ended: prompts that arrived while it ran are delivered now, unless it
	 * was cancelled (an abort leaves queued messages queued).
	 */
	compactionEnded(cancelled: boolean): void {
		if (!this.waitingForCompaction) return;
		this.waitingForCompaction = false;
		if (!cancelled && !this.paused) this.deliverQueued();
	}

	/** Starts a run for the queued messages when the agent is idle. */
	private deliverQueued(): void {
		if (this.host.runs.isStreaming || this.host.agent.queuedCount === 0) return;
		void this.host.runs
			.run("continue")
			.catch((error: unknown) => this.host.events.warn(`Could not deliver queued messages: ${String(error)}`));
	}

	/**
	 * Takes a prompt: refuses it (throws) or accepts it, calling `options.onAccepted` before any
	 * event; resolves when its lifecycle has settled (at once when it was queued or handled).
	 * The prompt is abortable from its arrival: an abort while it is being accepted makes its run
	 * start aborted (it is still recorded).
	 */
	async prompt(text: string, options: PromptOptions = {}): Promise<void> {
		const operation = this.host.tree.start();
		try {
			await this.take(text, options, operation);
		} finally {
			operation.finish();
		}
	}

	private async take(text: string, options: PromptOptions, operation: Operation): Promise<void> {
		const { host } = this;
		const blocked = host.models.blockedReason;
		if (blocked) throw new Error(blocked);
		await host.extensions.ready;
		if (host.extensions.commandName(text)) {
			// Extension commands run at once, even while streaming; the response follows them. The
			// command is the extension's own work: an abort cancels its dialogs, not the command.
			operation.finish();
			options.onCommandStart?.();
			await host.extensions.runCommand(text);
			options.onAccepted?.("handled");
			return;
		}
		if (this.paused) {
			this.queue(
				options.streamingBehavior === "followUp" ? "followUp" : "steer",
				userMessage(text, options.images),
				text,
			);
			options.onAccepted?.("queued");
			return;
		}
		const input = await host.extensions.onInput({
			text,
			images: options.images,
			streamingBehavior: host.runs.isStreaming ? options.streamingBehavior : undefined,
		});
		if (input.handled) {
			options.onAccepted?.("handled");
			return;
		}
		const expanded = await host.resources.expand(input.text);
		// From here on nothing awaits before acceptance, so two prompts cannot both start a run.
		const message = userMessage(expanded, input.images);
		if (host.runs.isStreaming) {
			if (!options.streamingBehavior) throw new Error(BUSY_PROMPT_MESSAGE);
			this.queue(options.streamingBehavior, message, expanded);
			options.onAccepted?.("queued");
			return;
		}
		if (host.compaction.isCompacting) {
			// A manual compaction runs: the prompt goes out on the compacted conversation, after it.
			this.queue(options.streamingBehavior ?? "followUp", message, expanded);
			this.waitingForCompaction = true;
			options.onAccepted?.("queued");
			return;
		}
		this.checkModel();
		const onAccepted = options.onAccepted;
		await host.runs.run([message, ...this.nextTurn.splice(0)], operation, onAccepted && (() => onAccepted("started")));
	}

	async steer(text: string, images?: ImageContent[]): Promise<void> {
		await this.enqueue("steer", text, images);
	}

	async followUp(text: string, images?: ImageContent[]): Promise<void> {
		await this.enqueue("followUp", text, images);
	}

	/** An extension's custom message, delivered as its options say (`pi.sendMessage`). */
	async sendCustomMessage(input: CustomMessageInput, options: SendMessageOptions = {}): Promise<void> {
		const message: CustomMessage = {
			role: "custom",
			customType: input.customType,
			content: input.content,
			display: input.display,
			timestamp: Date.now(),
		};
		if (input.details !== undefined) message.details = input.details;
		const label = `[${input.customType}]`;
		const deliverAs = options.deliverAs ?? "steer";
		if (deliverAs === "nextTurn") this.nextTurn.push(message);
		else if (this.host.runs.isStreaming) this.queue(deliverAs, message, label);
		else if (options.triggerTurn) {
			this.checkModel();
			await this.host.runs.run([message]);
		} else this.host.conversation.append(message);
	}

	/** An extension's user message: a prompt when idle, else queued per `deliverAs` (`pi.sendUserMessage`). */
	async sendUserMessage(
		content: string | (TextContent | ImageContent)[],
		options: SendUserMessageOptions = {},
	): Promise<void> {
		const text =
			typeof content === "string"
				? content
				: content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
		const images =
			typeof content === "string"
				? undefined
				: content.filter((block): block is ImageContent => block.type === "image");
		if (!this.host.runs.isStreaming) return this.prompt(text, { images });
		if (!options.deliverAs)
			throw new Error("The agent is busy: pass deliverAs ('steer' or 'followUp') to queue the message.");
		this.queue(options.deliverAs, userMessage(text, images), text);
	}

	private async enqueue(behavior: StreamingBehavior, text: string, images?: ImageContent[]): Promise<void> {
		await this.host.extensions.ready;
		const command = this.host.extensions.commandName(text);
		if (command) throw new Error(QUEUED_COMMAND_MESSAGE(command));
		const expanded = await this.host.resources.expand(text);
		this.queue(behavior, userMessage(expanded, images), expanded);
	}

	/** Throws when no model is selected or its key is missing. */
	private checkModel(): void {
		const model = this.host.models.model;
		if (!model) throw new Error(NO_MODEL_MESSAGE);
		this.host.requests.options(model);
	}

	private queue(behavior: StreamingBehavior, message: AgentMessage, text: string): void {
		if (behavior === "followUp") this.host.agent.queueFollowUp(message, text);
		else this.host.agent.queueSteering(message, text);
	}
}
