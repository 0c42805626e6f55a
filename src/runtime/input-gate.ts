import type { Agent } from "../agent/agent.js";
import type { AgentMessage, CustomMessage } from "../agent/messages.js";
import type { CustomMessageInput, SendMessageOptions, SendUserMessageOptions } from "../extensions/index.js";
import type { ImageContent, TextContent } from "../llm/types.js";
import type { PromptOptions, StreamingBehavior } from "./agent-session-types.js";
import { type ExtensionBridge, QUEUED_COMMAND_MESSAGE } from "./extension-bridge.js";
import { userMessage } from "./messages.js";
import type { ResourceState } from "./resource-state.js";

export const BUSY_PROMPT_MESSAGE =
	"Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.";
export const NO_MODEL_MESSAGE =
	"No model selected. Use set_model, --model, or configure a provider (see --list-models).";

export interface InputGateHost {
	agent: Agent;
	resources: Pick<ResourceState, "expand">;
	extensions: ExtensionBridge;
	isStreaming(): boolean;
	/** Why prompts are refused right now (a blocked saved default), if they are. */
	blockedReason(): string | undefined;
	/** Throws when no model is selected or its key is missing. */
	checkModel(): void;
	/**
	 * Runs one prompt lifecycle with accepted messages; calls `onAccepted` before any event.
	 * `abortAtStart`: an abort came while the prompt was being accepted; the run starts aborted.
	 */
	run(messages: AgentMessage[] | "continue", onAccepted?: () => void, abortAtStart?: boolean): Promise<void>;
	/** Reports a failure nobody awaits. */
	warn(message: string): void;
	/** Records a message outside any run (it joins the conversation at once). */
	append(message: AgentMessage): void;
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
	/** Prompts between arrival and acceptance (or refusal). */
	private readonly accepting = new Set<Promise<void>>();
	/** Counts aborts, so a prompt accepted after an abort that arrived later can start aborted. */
	private aborts = 0;
	/** pause_queued_messages: every prompt is queued, even when idle, without hooks or expansion. */
	private pausedValue = false;

	constructor(private readonly host: InputGateHost) {}

	get paused(): boolean {
		return this.pausedValue;
	}

	/** While paused, prompts are queued (even when idle) and queued messages wait. */
	pause(): void {
		this.pausedValue = true;
		this.host.agent.holdQueues = true;
	}

	/** Ends a pause; queued messages are delivered (a run starts when the agent is idle). */
	resume(): { released: boolean } {
		const released = this.pausedValue;
		this.pausedValue = false;
		this.host.agent.holdQueues = false;
		if (released && !this.host.isStreaming() && this.host.agent.queuedCount > 0) {
			void this.host
				.run("continue")
				.catch((error: unknown) => this.host.warn(`Could not deliver queued messages: ${String(error)}`));
		}
		return { released };
	}

	/** An abort arrived: prompts still being accepted start their run aborted. */
	abortPending(): void {
		this.aborts++;
	}

	/** Resolves once no prompt is between arrival and acceptance. */
	async settled(): Promise<void> {
		while (this.accepting.size > 0) await Promise.all([...this.accepting]);
	}

	/**
	 * Takes a prompt: refuses it (throws) or accepts it, calling `options.onAccepted` before any
	 * event; resolves when its lifecycle has settled (at once when it was queued or handled).
	 */
	async prompt(text: string, options: PromptOptions = {}): Promise<void> {
		let resolveAccepting: () => void = () => undefined;
		const accepting = new Promise<void>((resolve) => {
			resolveAccepting = resolve;
		});
		// Leaves the set the moment it resolves: settled() must never wait on a resolved entry.
		const release = () => {
			this.accepting.delete(accepting);
			resolveAccepting();
		};
		this.accepting.add(accepting);
		const aborts = this.aborts;
		try {
			await this.take(
				text,
				{
					...options,
					onAccepted: () => {
						release();
						options.onAccepted?.();
					},
				},
				() => this.aborts !== aborts,
			);
		} finally {
			release();
		}
	}

	private async take(text: string, options: PromptOptions, abortedSince: () => boolean): Promise<void> {
		const { host } = this;
		const blocked = host.blockedReason();
		if (blocked) throw new Error(blocked);
		await host.extensions.ready;
		if (host.extensions.commandName(text)) {
			// Extension commands run at once, even while streaming; the response follows them.
			options.onCommandStart?.();
			await host.extensions.runCommand(text);
			options.onAccepted?.();
			return;
		}
		if (this.paused) {
			this.queue(
				options.streamingBehavior === "followUp" ? "followUp" : "steer",
				userMessage(text, options.images),
				text,
			);
			options.onAccepted?.();
			return;
		}
		const input = await host.extensions.onInput({
			text,
			images: options.images,
			streamingBehavior: host.isStreaming() ? options.streamingBehavior : undefined,
		});
		if (input.handled) {
			options.onAccepted?.();
			return;
		}
		const expanded = await host.resources.expand(input.text);
		// From here on nothing awaits before acceptance, so two prompts cannot both start a run.
		const message = userMessage(expanded, input.images);
		if (host.isStreaming()) {
			if (!options.streamingBehavior) throw new Error(BUSY_PROMPT_MESSAGE);
			this.queue(options.streamingBehavior, message, expanded);
			options.onAccepted?.();
			return;
		}
		host.checkModel();
		await host.run([message, ...this.nextTurn.splice(0)], options.onAccepted, abortedSince());
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
		else if (this.host.isStreaming()) this.queue(deliverAs, message, label);
		else if (options.triggerTurn) {
			this.host.checkModel();
			await this.host.run([message]);
		} else this.host.append(message);
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
		if (!this.host.isStreaming()) return this.prompt(text, { images });
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

	private queue(behavior: StreamingBehavior, message: AgentMessage, text: string): void {
		if (behavior === "followUp") this.host.agent.queueFollowUp(message, text);
		else this.host.agent.queueSteering(message, text);
	}
}
