import { fileURLToPath } from "node:url";
import { type ContentBlock, RequestError } from "@agentclientprotocol/sdk";
import type { ImageContent } from "../llm/types.js";

/** What a prompt's content blocks become: the text the model reads and the images it sees. */
export interface PromptInput {
	text: string;
	images: ImageContent[];
}

/** Linked files larger than this are named, not inlined. */
export const MAX_LINKED_FILE_BYTES = 256 * 1024;

/** Reads a linked file's text (the editor's buffer or the disk); undefined when it cannot be read. */
export type LinkedFileReader = (path: string) => Promise<string | undefined>;

function filePath(uri: string): string | undefined {
	if (!uri.startsWith("file:")) return undefined;
	try {
		return fileURLToPath(uri);
	} catch (error) {
		if (error instanceof TypeError) return undefined;
		throw error;
	}
}

function context(uri: string, text: string, mimeType?: string | null): string {
	const type = mimeType ? ` type="${mimeType}"` : "";
	return `<context uri="${uri}"${type}>\n${text.replace(/\n$/, "")}\n</context>`;
}

/**
 * Turns ACP prompt content into the text and images of an Atomic prompt. Text blocks are joined as
 * they are; a resource link or embedded resource is named where it stands (`@path`) and its content
 * follows the text as context the model sees: embedded text as it is, a linked local file read
 * (when it is text and at most MAX_LINKED_FILE_BYTES), an embedded image as an image. Audio is
 * refused (it is not advertised).
 */
export async function promptInput(blocks: readonly ContentBlock[], readLinked: LinkedFileReader): Promise<PromptInput> {
	let text = "";
	const contexts: string[] = [];
	const images: ImageContent[] = [];
	for (const block of blocks) {
		switch (block.type) {
			case "text":
				text += block.text;
				break;
			case "image":
				images.push({ type: "image", data: block.data, mimeType: block.mimeType });
				break;
			case "audio":
				throw RequestError.invalidParams(undefined, "audio prompts are not supported");
			case "resource_link": {
				const path = filePath(block.uri);
				text += `@${path ?? block.uri}`;
				const size = block.size ?? undefined;
				const content =
					path !== undefined && (size === undefined || size <= MAX_LINKED_FILE_BYTES)
						? await readLinked(path)
						: undefined;
				if (content !== undefined && Buffer.byteLength(content, "utf8") <= MAX_LINKED_FILE_BYTES) {
					contexts.push(context(block.uri, content, block.mimeType));
				}
				break;
			}
			case "resource": {
				const resource = block.resource;
				text += `@${filePath(resource.uri) ?? resource.uri}`;
				if ("text" in resource) contexts.push(context(resource.uri, resource.text, resource.mimeType));
				else if (resource.mimeType?.startsWith("image/")) {
					images.push({ type: "image", data: resource.blob, mimeType: resource.mimeType });
				} else {
					const type = resource.mimeType ?? "binary data";
					contexts.push(`<context uri="${resource.uri}">(${type}, not shown)</context>`);
				}
				break;
			}
		}
	}
	if (contexts.length > 0) text = `${text}\n\n${contexts.join("\n\n")}`;
	return { text, images };
}
