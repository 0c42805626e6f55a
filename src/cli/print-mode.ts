import type { ModelRegistry } from "../llm/model-registry.js";
import { streamModel } from "../llm/registry.js";
import type { Model, ThinkingLevel } from "../llm/types.js";

/** Sends one prompt and streams the reply text to stdout. Returns the exit code. */
export async function runPrintMode(
	registry: ModelRegistry,
	model: Model,
	thinkingLevel: ThinkingLevel,
	prompt: string,
): Promise<number> {
	const auth = registry.requestAuth(model);
	const controller = new AbortController();
	process.once("SIGINT", () => controller.abort());
	const stream = streamModel(
		model,
		{ messages: [{ role: "user", content: prompt, timestamp: Date.now() }] },
		{ apiKey: auth.apiKey, headers: auth.headers, reasoning: thinkingLevel, signal: controller.signal },
	);
	let wroteText = false;
	for await (const event of stream) {
		if (event.type === "text_delta") {
			process.stdout.write(event.delta);
			wroteText = true;
		} else if (event.type === "error") {
			if (wroteText) process.stdout.write("\n");
			process.stderr.write(`Error: ${event.message.errorMessage ?? event.reason}\n`);
			return 1;
		}
	}
	if (wroteText) process.stdout.write("\n");
	return 0;
}
