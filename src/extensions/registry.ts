import type { SourceInfo } from "../resources/source-info.js";
import type { ExtensionContext, FlagOptions, RegisteredCommand, ToolDefinition } from "./types.js";

/** A handler as stored: the typed `on()` overloads are erased here. */
export type StoredHandler = (event: unknown, ctx: ExtensionContext) => unknown;

/** What one extension registered. Records of extensions that failed to load are dropped. */
export interface ExtensionRecord {
	path: string;
	/** How the file was found (reported with its commands and tools). */
	sourceInfo: SourceInfo;
	/** Event name to handlers, in registration order. */
	handlers: Map<string, StoredHandler[]>;
	/** Re-registering a name in the same extension replaces it. */
	commands: Map<string, RegisteredCommand>;
	tools: Map<string, ToolDefinition>;
	/** `registerFlag` declarations (Atomic has no extension CLI flags: they keep their default). */
	flags: Map<string, FlagOptions>;
}

export function newExtensionRecord(path: string, sourceInfo: SourceInfo): ExtensionRecord {
	return { path, sourceInfo, handlers: new Map(), commands: new Map(), tools: new Map(), flags: new Map() };
}

/** A registered command under the name it is invoked by. */
export interface CommandEntry {
	/** With a `:n` suffix when several extensions registered the same name. */
	name: string;
	extensionPath: string;
	sourceInfo: SourceInfo;
	command: RegisteredCommand;
}

/** Every command, in load order; names used by several extensions get `:1`, `:2`, ... */
export function commandTable(records: readonly ExtensionRecord[]): CommandEntry[] {
	const counts = new Map<string, number>();
	for (const record of records) {
		for (const name of record.commands.keys()) counts.set(name, (counts.get(name) ?? 0) + 1);
	}
	const seen = new Map<string, number>();
	const table: CommandEntry[] = [];
	for (const record of records) {
		for (const [name, command] of record.commands) {
			let invokedAs = name;
			if ((counts.get(name) ?? 0) > 1) {
				const index = (seen.get(name) ?? 0) + 1;
				seen.set(name, index);
				invokedAs = `${name}:${index}`;
			}
			table.push({ name: invokedAs, extensionPath: record.path, sourceInfo: record.sourceInfo, command });
		}
	}
	return table;
}
