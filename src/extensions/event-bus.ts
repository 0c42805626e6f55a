import type { EventBus } from "./types.js";

/**
 * The channel extensions share (`pi.events`). Handlers run synchronously in subscription order;
 * one that throws (or rejects) is reported and the others still run.
 */
export function createEventBus(report: (channel: string, error: unknown) => void): EventBus {
	const channels = new Map<string, Set<(data: unknown) => unknown>>();
	return {
		on(channel, handler) {
			if (typeof handler !== "function") throw new TypeError(`events.on(${channel}): the handler must be a function`);
			const handlers = channels.get(channel) ?? new Set();
			handlers.add(handler);
			channels.set(channel, handlers);
			return () => {
				handlers.delete(handler);
			};
		},
		emit(channel, data) {
			for (const handler of [...(channels.get(channel) ?? [])]) {
				try {
					const outcome = handler(data);
					if (outcome instanceof Promise) outcome.catch((error: unknown) => report(channel, error));
				} catch (error) {
					report(channel, error);
				}
			}
		},
	};
}
