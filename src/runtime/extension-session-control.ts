import type { SessionControl } from "../extensions/index.js";
import type { AgentSession } from "./agent-session.js";
import type { ResourceState } from "./resource-state.js";

/** What a command handler may do to the session (`ctx.newSession()`, `ctx.fork()`, ...). */
export function sessionControl(session: AgentSession, resources: ResourceState): SessionControl {
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
		reloadResources: async () => {
			resources.reload(session.cwd);
			await resources.current;
		},
	};
}
