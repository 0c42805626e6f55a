import {
	type AuthMethod,
	type InitializeRequest,
	type InitializeResponse,
	PROTOCOL_VERSION,
} from "@agentclientprotocol/sdk";

/** The one authentication method: a key Atomic finds in the environment or auth.json. */
export const API_KEY_METHOD = "api-key";

const AUTH_METHODS: AuthMethod[] = [
	{
		id: API_KEY_METHOD,
		name: "API key",
		description:
			"Atomic uses the provider keys in its environment (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, ...) " +
			"or in ~/.atomic/agent/auth.json. Add one, then authenticate again.",
	},
];

/**
 * The `initialize` answer: the protocol version (the client's when Atomic speaks it, else the
 * closest one Atomic does: ACP has one stable version), what Atomic really supports, who it is,
 * and how it authenticates.
 */
export function initializeResponse(request: InitializeRequest, version: string): InitializeResponse {
	return {
		protocolVersion: Math.min(Math.max(1, Math.trunc(request.protocolVersion)), PROTOCOL_VERSION),
		agentCapabilities: {
			loadSession: true,
			promptCapabilities: { image: true, audio: false, embeddedContext: true },
			mcpCapabilities: { http: true, sse: true },
			sessionCapabilities: { list: {}, resume: {}, close: {} },
		},
		authMethods: AUTH_METHODS,
		agentInfo: { name: "atomic", title: "Atomic", version },
	};
}
