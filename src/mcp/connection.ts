import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { GetPromptResult, Prompt, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { CallOutcome } from "./content.js";
import { describeError, telltaleLine } from "./errors.js";
import type * as Sdk from "./sdk.js";
import { type OpenedTransport, openTransport } from "./transport.js";
import type { McpServerConfig, McpServerStatus } from "./types.js";

type SdkModule = typeof Sdk;

let sdkLoading: Promise<SdkModule> | undefined;

/** The SDK, imported on the first connection (a failed import is tried again next time). */
function loadSdk(): Promise<SdkModule> {
	sdkLoading ??= import("./sdk.js").catch((error: unknown) => {
		sdkLoading = undefined;
		throw new Error(`the MCP SDK could not be loaded: ${describeError(error)}`, { cause: error });
	});
	return sdkLoading;
}

/** A listing is cut off after this many pages (a server that keeps sending cursors). */
const MAX_PAGES = 100;
/** How much of a server's stderr is kept to explain a failure. */
const STDERR_TAIL = 2000;

export interface ConnectionOptions {
	/** The working directory of stdio servers without a `cwd`. */
	cwd: string;
	startupTimeoutMs: number;
	toolTimeoutMs: number;
	clientVersion: string;
	/** Status, tools or prompts changed. Must not throw. */
	onChange(connection: McpConnection): void;
	/** A line a server wrote to stderr, or a problem worth logging. Must not throw. */
	log(server: string, line: string): void;
}

interface Live {
	sdk: SdkModule;
	client: Client;
	opened: OpenedTransport;
}

/**
 * One server: its connection (official SDK client), status, tools and prompts. A failed server
 * keeps its last tools; a call to it tries to reconnect once before it answers with an error.
 */
export class McpConnection {
	status: McpServerStatus;
	error: string | undefined;
	tools: Tool[] = [];
	prompts: Prompt[] = [];
	private live: Live | undefined;
	private connecting: Promise<void> | undefined;
	private readonly refreshing = new Set<Promise<void>>();
	private stderrTail = "";
	private stderrPartial = "";

	constructor(
		readonly config: McpServerConfig,
		private readonly options: ConnectionOptions,
		skipped = false,
	) {
		this.status = skipped ? "skipped" : "starting";
	}

	get name(): string {
		return this.config.name;
	}

	/** Connects (unless skipped, closed or connected). Never rejects: a failure becomes `failed`. */
	start(): Promise<void> {
		if (this.connecting) return this.connecting;
		if (this.status === "skipped" || this.status === "closed" || this.status === "connected") return Promise.resolve();
		const connecting = this.connect();
		this.connecting = connecting;
		void connecting.then(() => {
			if (this.connecting === connecting) this.connecting = undefined;
		});
		return connecting;
	}

	/** Resolves once it is not starting and no list refresh is in flight. Never rejects. */
	async settled(): Promise<void> {
		await this.connecting;
		while (this.refreshing.size > 0) await Promise.all([...this.refreshing]);
	}

	/**
	 * Calls a tool. Throws an error naming the server when the server is unavailable (after one
	 * reconnect attempt), breaks during the call, does not answer within the tool timeout (the call
	 * is cancelled), or answers with a protocol error; `signal` cancels the call.
	 */
	async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallOutcome> {
		const live = await this.available();
		const timeout = this.options.toolTimeoutMs;
		try {
			return await live.client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout });
		} catch (error) {
			throw this.callError(live, error, signal, `the call to "${tool}"`, timeout);
		}
	}

	/** Gets a prompt with its arguments; throws like `call`. */
	async getPrompt(prompt: string, args: Record<string, string>, signal?: AbortSignal): Promise<GetPromptResult> {
		const live = await this.available();
		const timeout = this.options.toolTimeoutMs;
		try {
			return await live.client.getPrompt({ name: prompt, arguments: args }, { signal, timeout });
		} catch (error) {
			throw this.callError(live, error, signal, `the prompt "${prompt}"`, timeout);
		}
	}

	/** Stops the server (a stdio server's process ends) and marks it closed. */
	async close(): Promise<void> {
		if (this.status === "skipped" || this.status === "closed") return;
		this.setStatus("closed", undefined);
		const live = this.live;
		this.live = undefined;
		if (live) await this.shut(live);
		await this.connecting;
	}

	private async available(): Promise<Live> {
		if (this.status === "starting") await this.connecting;
		else if (this.status === "failed") await this.start();
		const live = this.live;
		if (this.status === "connected" && live) return live;
		throw new Error(`MCP server "${this.name}" is not available: ${this.error ?? this.status}`);
	}

	private callError(live: Live, error: unknown, signal: AbortSignal | undefined, what: string, timeout: number): Error {
		const { sdk } = live;
		const prefix = `MCP server "${this.name}"`;
		if (signal?.aborted) return new Error(`${what} to ${prefix} was cancelled`, { cause: error });
		if (error instanceof sdk.McpError && error.code === sdk.ErrorCode.RequestTimeout) {
			return new Error(`${prefix}: ${what} did not finish within ${timeout} ms and was cancelled`, { cause: error });
		}
		if (this.live !== live) {
			return new Error(`${prefix} failed during ${what}: ${this.error ?? describeError(error)}`, { cause: error });
		}
		if (!(error instanceof sdk.McpError)) {
			// Not an answer from the server: the connection broke. The next call reconnects.
			this.fail(live, describeError(error));
			return new Error(`${prefix} failed during ${what}: ${this.error}`, { cause: error });
		}
		return new Error(`${prefix}: ${error.message}`, { cause: error });
	}

	private async connect(): Promise<void> {
		this.setStatus("starting", undefined);
		const timeout = this.options.startupTimeoutMs;
		const controller = new AbortController();
		const timer = setTimeout(() => controller.abort(), timeout);
		let live: Live | undefined;
		try {
			live = await this.open();
			if (this.status === "closed") return;
			this.live = live;
			await live.client.connect(live.opened.transport, { signal: controller.signal, timeout });
			const tools = await this.listTools(live.client, { signal: controller.signal, timeout });
			const prompts = await this.listPrompts(live.client, { signal: controller.signal, timeout });
			if (this.live !== live) return;
			this.tools = tools;
			this.prompts = prompts;
			this.setStatus("connected", undefined);
		} catch (error) {
			if (live && this.live === live) {
				this.live = undefined;
				await this.shut(live);
			}
			if (this.status === "closed") return;
			const reason = controller.signal.aborted ? `did not start within ${timeout} ms` : describeError(error);
			this.setStatus("failed", this.withStderr(reason));
		} finally {
			clearTimeout(timer);
		}
	}

	private async open(): Promise<Live> {
		const sdk = await loadSdk();
		this.stderrTail = "";
		const opened = openTransport(sdk, this.config, this.options.cwd, (chunk) => this.onStderr(chunk));
		const changed = (kind: "tools" | "prompts") => ({
			autoRefresh: false,
			debounceMs: 0,
			onChanged: () => this.refresh(live, kind),
		});
		const client = new sdk.Client(
			{ name: "atomic", version: this.options.clientVersion },
			{ capabilities: {}, listChanged: { tools: changed("tools"), prompts: changed("prompts") } },
		);
		const live: Live = { sdk, client, opened };
		client.onclose = () => this.fail(live, opened.closedReason());
		client.onerror = (error) => this.options.log(this.name, describeError(error));
		return live;
	}

	/** A live connection broke: it is dropped and the server is failed (unless it is starting). */
	private fail(live: Live, reason: string): void {
		if (this.live !== live) return;
		this.live = undefined;
		void this.shut(live);
		if (this.status === "connected") this.setStatus("failed", this.withStderr(reason));
	}

	private async shut(live: Live): Promise<void> {
		try {
			await live.client.close();
		} catch (error) {
			this.options.log(this.name, `could not close the connection: ${describeError(error)}`);
		}
	}

	private refresh(live: Live, kind: "tools" | "prompts"): void {
		const work = (async () => {
			const options = { timeout: this.options.startupTimeoutMs };
			try {
				if (kind === "tools") {
					const tools = await this.listTools(live.client, options);
					if (this.live === live) this.tools = tools;
				} else {
					const prompts = await this.listPrompts(live.client, options);
					if (this.live === live) this.prompts = prompts;
				}
				if (this.live === live) this.options.onChange(this);
			} catch (error) {
				this.options.log(this.name, `could not refresh its ${kind}: ${describeError(error)}`);
			}
		})();
		this.refreshing.add(work);
		void work.then(() => this.refreshing.delete(work));
	}

	private async listTools(client: Client, options: { signal?: AbortSignal; timeout: number }): Promise<Tool[]> {
		if (!client.getServerCapabilities()?.tools) return [];
		const tools: Tool[] = [];
		let cursor: string | undefined;
		for (let page = 0; page < MAX_PAGES; page++) {
			const result = await client.listTools(cursor === undefined ? {} : { cursor }, options);
			tools.push(...result.tools);
			cursor = result.nextCursor;
			if (cursor === undefined) break;
		}
		return tools;
	}

	private async listPrompts(client: Client, options: { signal?: AbortSignal; timeout: number }): Promise<Prompt[]> {
		if (!client.getServerCapabilities()?.prompts) return [];
		const prompts: Prompt[] = [];
		let cursor: string | undefined;
		for (let page = 0; page < MAX_PAGES; page++) {
			const result = await client.listPrompts(cursor === undefined ? {} : { cursor }, options);
			prompts.push(...result.prompts);
			cursor = result.nextCursor;
			if (cursor === undefined) break;
		}
		return prompts;
	}

	private onStderr(chunk: string): void {
		this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL);
		const lines = (this.stderrPartial + chunk).split("\n");
		this.stderrPartial = lines.pop() ?? "";
		for (const line of lines) if (line.trim()) this.options.log(this.name, line);
	}

	private withStderr(reason: string): string {
		const last = telltaleLine(this.stderrTail);
		return last ? `${reason}; stderr: ${last}` : reason;
	}

	private setStatus(status: McpServerStatus, error: string | undefined): void {
		if (this.status === status && this.error === error) return;
		this.status = status;
		this.error = error;
		this.options.onChange(this);
	}
}
