// A real MCP server (the TypeScript SDK's) whose "die" tool starts writing
// its answer on stdout and dies halfway through it.
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");

const server = new McpServer({ name: "dying", version: "1.0.0" });
server.registerTool("die", { description: "Dies in the middle of its answer." }, async () => {
  process.stdout.write('{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"' + "x".repeat(Number(process.env.DIE_AFTER || 100)));
  setImmediate(() => { throw new Error("widget store corrupted: cannot read page 7"); });
  return new Promise(() => {});
});
server.registerTool("ok", { description: "Answers." }, async () => ({ content: [{ type: "text", text: "fine" }] }));
server.connect(new StdioServerTransport());
