// Memory growth over a long conversation: tree RSS after 200 prompts relative to after 25.
import { warmAgent } from "./warm.mjs";

const message = "grow [[tokens=20]]";
const early = 25;
const late = 200;

export default {
	id: "rss-growth",
	rows: [{ key: "rssGrowthPct", label: "RSS after 200 prompts / after 25", unit: "%", goal: { max: 5 } }],
	// One long run per agent: the figure is a ratio within the run.
	runs: 1,
	async measure(spec, context) {
		const agent = await warmAgent(spec, context, []);
		try {
			let earlyKb = 0;
			for (let count = 1; count <= late; count++) {
				await agent.prompt(message);
				if (count === early) earlyKb = agent.treeRssKb();
			}
			const lateKb = agent.treeRssKb();
			return { rssGrowthPct: (lateKb / earlyKb - 1) * 100, rssAfter25Mb: earlyKb / 1024, rssAfter200Mb: lateKb / 1024 };
		} finally {
			await agent.close();
		}
	},
};
