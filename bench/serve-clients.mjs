// A process of its own for the clients of the serve-fanout figure, so that receiving ten streams
// does not slow the mock model in the bench's process. The clients are bare-socket ones
// (bench/serve-raw-client.mjs): they read every frame but decode only responses, so that what the
// figure measures on a shared machine is the server's sending more than ten JSON parsers' receiving.
// Usage (stdin/stdout, one JSON line each):
//   node bench/serve-clients.mjs <url> <token> <count>
//   → {"ready":true,"sessionId":…}          once every client is attached to one new session
//   ← {"prompt":"<message>"}                 client 0 sends it; all wait for agent_settled
//   → {"rates":[…per client, updates/ms…]}
import { createInterface } from "node:readline";
import { RawClientGroup } from "./serve-raw-client.mjs";
import { countedRate } from "./serve-server.mjs";

const [url, token, countText] = process.argv.slice(2);
const group = await RawClientGroup.attach(url, token, Number(countText));
process.stdout.write(`${JSON.stringify({ ready: true, sessionId: group.sessionId })}\n`);

for await (const line of createInterface({ input: process.stdin })) {
	const { prompt } = JSON.parse(line);
	const { updates } = await group.prompt(prompt);
	process.stdout.write(`${JSON.stringify({ rates: updates.map((each) => countedRate(each)) })}\n`);
}
group.close();
