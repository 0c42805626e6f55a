// A process of its own for the clients of the serve-fanout figure, so that receiving ten streams
// does not slow the mock model in the bench's process. Usage (stdin/stdout, one JSON line each):
//   node bench/serve-clients.mjs <url> <token> <count>
//   → {"ready":true,"sessionId":…}          once every client is attached to one new session
//   ← {"prompt":"<message>"}                 client 0 sends it; all wait for agent_settled
//   → {"rates":[…per client, updates/ms…]}
import { createInterface } from "node:readline";
import { ServeClient, updateRate } from "./serve-server.mjs";

const [url, token, countText] = process.argv.slice(2);
const count = Number(countText);
const clients = [];
let sessionId = null;
for (let index = 0; index < count; index++) {
	const client = await ServeClient.connect(url, token, { light: true });
	sessionId = (await client.attach(sessionId)).sessionId;
	clients.push(client);
}
process.stdout.write(`${JSON.stringify({ ready: true, sessionId })}\n`);

for await (const line of createInterface({ input: process.stdin })) {
	const { prompt } = JSON.parse(line);
	const marks = clients.map((client) => client.records.length);
	await clients[0].request({ type: "prompt", message: prompt });
	await Promise.all(
		clients.map((client, index) => client.waitFor((record) => record.type === "agent_settled", marks[index])),
	);
	const rates = clients.map((client, index) => updateRate(client.records.slice(marks[index])));
	process.stdout.write(`${JSON.stringify({ rates })}\n`);
}
for (const client of clients) client.close();
