import type { Wire } from "./index.js";

// Placeholder until this protocol's wire format is written.
export const openaiCompletionsWire: Wire = {
	frames() {
		throw new Error("openai-completions wire format not written yet");
	},
	errorBody(status, message) {
		return { status, message };
	},
};
