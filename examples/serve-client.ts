// A client of `agentpipe serve`: one WebSocket connection is one session. It sends stream-json input lines (the same
// as `--input-format stream-json` on stdin) and reads the session's output lines back. Node 22+ has WebSocket built in.
const [url, token] = process.argv.slice(2); // the URL and token `agentpipe serve` printed
if (!url || !token) throw new Error('usage: node serve-client.ts ws://127.0.0.1:PORT/ TOKEN');

const ws = new WebSocket(`${url}?token=${encodeURIComponent(token)}`);
ws.onopen = () => {
  const prompt = { type: 'user', message: { role: 'user', content: 'What is in this folder?' } };
  ws.send(`${JSON.stringify(prompt)}\n`);
};
ws.onmessage = (event) => {
  for (const line of String(event.data).split('\n').filter(Boolean)) {
    const message = JSON.parse(line) as { type: string; subtype?: string; is_error?: boolean; result?: string };
    if (message.type !== 'result') continue; // system/init, assistant, user (tool results), ... stream by
    console.log(message.is_error ? `failed (${message.subtype})` : message.result);
    process.exitCode = message.is_error ? 1 : 0;
    ws.close(); // ends the session; or send the next prompt on the same connection
  }
};
ws.onerror = () => {
  console.error(`cannot connect to ${url}`);
  process.exitCode = 1;
};
