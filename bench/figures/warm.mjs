// Helpers for figures that measure an agent that has already started and served a few prompts.

/** Launches `spec`, waits for its first get_state response, then runs each warm-up prompt. */
export async function warmAgent(spec, context, warmups, launchOptions) {
	const agent = context.launch(spec, launchOptions);
	try {
		await agent.ok({ type: "get_state" });
		for (const message of warmups) await agent.prompt(message);
		return agent;
	} catch (error) {
		await agent.close();
		throw error;
	}
}

/** A figure measured on one warm agent per peer, reused across its runs. */
export function warmFigure({ id, rows, warmups, measure }) {
	return {
		id,
		rows,
		prepare: (spec, context) => warmAgent(spec, context, warmups),
		measure: (_spec, _context, agent) => measure(agent),
		finish: (agent) => agent.close(),
	};
}
