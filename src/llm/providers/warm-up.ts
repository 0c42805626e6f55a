/**
 * A fetch for warming a provider SDK up without the network: every request is answered with
 * `events` as a `text/event-stream` body. The answer goes through the global fetch (a `data:`
 * URL), so Node's fetch implementation runs its first request too.
 */
export function cannedEventStream(events: readonly object[], withEventNames: boolean): typeof fetch {
	const body = events
		.map((event) => {
			const data = `data: ${JSON.stringify(event)}\n\n`;
			const name = "type" in event && typeof event.type === "string" ? event.type : undefined;
			return withEventNames && name ? `event: ${name}\n${data}` : data;
		})
		.join("");
	const url = `data:text/event-stream;base64,${Buffer.from(body).toString("base64")}`;
	return () => fetch(url);
}

/** Where a warm-up client points: never contacted (the canned fetch answers). */
export const WARM_UP_BASE_URL = "http://127.0.0.1:9";
