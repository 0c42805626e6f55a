import type { Wire } from "./index.js";

// Placeholder until this protocol's wire format is written.
export const openaiResponsesWire: Wire = {
	frames() {
		throw new Error("openai-responses wire format not written yet");
	},
	errorBody(status, message) {
		return { status, message };
	},
};
