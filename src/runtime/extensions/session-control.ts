import type { SessionControl } from "../../extensions/index.js";
import { expandSkillRoots } from "../../resources/skill-discovery.js";
import type { ResourceState } from "../resources/resource-state.js";
import type { SessionFace } from "./session-face.js";

/** What a command handler may do to the session (`ctx.newSession()`, `ctx.fork()`, ...). */
export function sessionControl(session: SessionFace, resources: ResourceState): SessionControl {
	return {
		waitForIdle: () =>
			new Promise<void>((resolve) => {
				if (!session.isStreaming) return resolve();
				const stop = session.subscribe((event) => {
					if (event.type === "agent_settled" && !session.isStreaming) {
						stop();
						resolve();
					}
				});
			}),
		newSession: (options) => session.newSession(options),
		fork: async (entryId) => ({ cancelled: (await session.fork(entryId)).cancelled }),
		clone: () => session.clone(),
		switchSession: (path) => session.switchSession(path),
		navigateTree: async (targetId, options) => ({
			cancelled: (await session.navigateTree(targetId, options)).cancelled,
		}),
		reloadResources: () => discoverResources(session, resources, "reload", true),
	};
}

/**
 * Asks extensions for extra skill and prompt template paths (`resources_discover`) and reloads the
 * resources when they gave some (always when `force`). Resolves once the load finished.
 */
export async function discoverResources(
	session: SessionFace,
	resources: ResourceState,
	reason: "startup" | "reload",
	force = false,
): Promise<void> {
	const extra = await session.extensions.discoverResources(session.cwd, reason);
	if (extra) resources.addPaths({ ...extra, skillPaths: expandSkillRoots(extra.skillPaths, session.cwd) });
	if (!extra && !force) return;
	resources.reload(session.cwd);
	await resources.current;
}
