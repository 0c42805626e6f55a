import type { Wire } from "./index.js";

// Placeholder until this protocol's wire format is written.
export const googleWire: Wire = {
	frames() {
		throw new Error("google-generative-ai wire format not written yet");
	},
	errorBody(status, message) {
		return { status, message };
	},
};
