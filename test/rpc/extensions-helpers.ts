/**
 * Shared pieces of the end-to-end extension tests: agents started with example extensions and
 * with extension sources written into the test's tree, and readers for the extension UI frames.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { expect } from "vitest";
import type { LlmServer } from "../support/llm-server.js";
import type { RpcAgent, RpcRecord } from "../support/rpc-process.js";
import { type AgentDirs, type StartedAgent, type StartOptions, startAgent } from "./helpers.js";

export const EXAMPLES = resolve("examples/extensions");
/** Extensions written for these tests (typed and linted like the examples). */
export const FIXTURES = resolve("test/rpc/fixtures/extensions");

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export interface ExtensionStartOptions extends StartOptions {
	/** Files of examples/extensions loaded with `-e` (absolute paths). */
	examples?: string[];
	/** Files of test/rpc/fixtures/extensions loaded with `-e` (absolute paths), after the examples. */
	fixtures?: string[];
	/** Sources written to `<root>/ext/<name>` and loaded with `-e ../ext/<name>` (relative to the cwd). */
	sources?: Record<string, string>;
}

export interface ExtensionAgent extends StartedAgent {
	/** The absolute path of a file given in `sources`. */
	sourcePath(name: string): string;
}

export function writeFile(path: string, text: string): string {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, text);
	return path;
}

export function sourcePathIn(dirs: AgentDirs, name: string): string {
	return join(dirs.root, "ext", name);
}

/** Starts an agent with examples, fixtures and written sources as explicit `-e` paths, in that order. */
export async function startWithExtensions(
	server: LlmServer,
	options: ExtensionStartOptions = {},
): Promise<ExtensionAgent> {
	const sources = options.sources ?? {};
	const args = [
		...(options.examples ?? []).flatMap((name) => ["-e", join(EXAMPLES, name)]),
		...(options.fixtures ?? []).flatMap((name) => ["-e", join(FIXTURES, name)]),
		...Object.keys(sources).flatMap((name) => ["-e", `../ext/${name}`]),
		...(options.args ?? []),
	];
	const started = await startAgent(server, {
		...options,
		args,
		prepare: (dirs) => {
			for (const [name, source] of Object.entries(sources)) writeFile(sourcePathIn(dirs, name), source);
			options.prepare?.(dirs);
		},
	});
	return { ...started, sourcePath: (name) => sourcePathIn(started.dirs, name) };
}

/** The `extension_ui_request` records since `start` (optionally of one method). */
export function uiRequests(agent: RpcAgent, start: number, method?: string): RpcRecord[] {
	return agent
		.since(start, "extension_ui_request")
		.filter((record) => method === undefined || record.method === method);
}

/**
 * The `extension_ui_request` records since `start` without their ids, after checking that every
 * id is a UUID and that no two are equal.
 */
export function uiFrames(agent: RpcAgent, start: number): Record<string, unknown>[] {
	const records = uiRequests(agent, start);
	const ids = records.map((record) => record.id);
	for (const id of ids) expect(id).toMatch(UUID);
	expect(new Set(ids).size).toBe(ids.length);
	return records.map(({ id: _id, ...rest }) => rest);
}

/** Waits for the next dialog request of `method` at or after `start`. */
export function nextDialog(agent: RpcAgent, method: string, start: number): Promise<RpcRecord> {
	return agent.waitForEvent("extension_ui_request", (record) => record.method === method, start);
}

/** Answers a dialog (`extension_ui_response`). */
export function answer(agent: RpcAgent, dialog: RpcRecord, fields: Record<string, unknown>): void {
	agent.send({ type: "extension_ui_response", id: dialog.id, ...fields });
}

/** The `tool_execution_end` records since `start`. */
export function toolEnds(agent: RpcAgent, start: number): RpcRecord[] {
	return agent.since(start, "tool_execution_end");
}

/** A text-only tool result as `tool_execution_end` carries it. */
export function textResult(text: string, details: unknown = {}): Record<string, unknown> {
	return { content: [{ type: "text", text }], details };
}
