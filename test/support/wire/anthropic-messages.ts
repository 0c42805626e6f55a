import type { Wire } from "./index.js";

// Placeholder until this protocol's wire format is written.
export const anthropicWire: Wire = {
	frames() {
		throw new Error("anthropic-messages wire format not written yet");
	},
	errorBody(status, message) {
		return { status, message };
	},
};
