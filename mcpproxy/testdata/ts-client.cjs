// An MCP client made with the TypeScript SDK, for the end-to-end tests:
// it starts the server $SERVER_ARGV (a JSON array: crumb in front of a
// server, or the server itself), lists its tools, makes the calls $CALLS
// (a JSON array of {name, arguments}) and prints what it got as JSON.
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

async function main() {
  const [command, ...args] = JSON.parse(process.env.SERVER_ARGV);
  const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
  const client = new Client({ name: "ts-e2e", version: "1.0.0" });
  const out = { calls: [] };
  try {
    await client.connect(transport);
    out.tools = (await client.listTools()).tools.map((t) => t.name);
    for (const call of JSON.parse(process.env.CALLS || "[]")) {
      try {
        out.calls.push({ result: await client.callTool(call) });
      } catch (e) {
        out.calls.push({ error: String(e.message) });
      }
    }
  } catch (e) {
    out.error = String(e.message);
  }
  console.log(JSON.stringify(out));
  await client.close().catch(() => {});
}
main();
