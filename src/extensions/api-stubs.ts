import { NotAvailableError } from "./compat/unavailable.js";
import type { ExtensionErrorListener } from "./host.js";

/** pi's registrations Atomic cannot honour: calling one reports a named extension error and goes on. */
const REPORTED: Record<string, string> = {
	registerProvider: "providers come from models.json",
	unregisterProvider: "providers come from models.json",
	registerVirtualModel: "there are no virtual models",
	unregisterVirtualModel: "there are no virtual models",
	registerMcpServer: "extensions cannot register MCP servers",
	unregisterMcpServer: "extensions cannot register MCP servers",
};

/** The members of `pi` that exist only to say they are not available (see docs/extensions.md). */
export function unavailableApiMembers(extensionPath: string, report: ExtensionErrorListener): Record<string, unknown> {
	const members: Record<string, unknown> = {};
	for (const [name, reason] of Object.entries(REPORTED)) {
		members[name] = () =>
			report({ extensionPath, event: name, error: new NotAvailableError(`pi.${name}`, reason).message });
	}
	// No extension registers MCP servers, so none is registered.
	members.getMcpServers = () => [];
	return members;
}
