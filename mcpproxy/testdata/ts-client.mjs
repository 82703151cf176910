// ts-client.mjs drives an MCP server with the official TypeScript SDK's
// client, as an agent behind an MCP client would: it calls one tool, then
// follows every crumb_read call the answers name, and prints what it saw
// as one JSON object on stdout.
//
// usage: node ts-client.mjs SDK_DIR TOOL ARGS_JSON -- SERVER_CMD ARGS...
// SDK_DIR is the directory of @modelcontextprotocol/sdk.
const [sdkDir, tool, argsJSON, sep, command, ...args] = process.argv.slice(2);
if (sep !== "--" || !command) {
  console.error("usage: node ts-client.mjs SDK_DIR TOOL ARGS_JSON -- SERVER_CMD ARGS...");
  process.exit(2);
}
const { Client } = await import(sdkDir + "/dist/esm/client/index.js");
const { StdioClientTransport } = await import(sdkDir + "/dist/esm/client/stdio.js");

const client = new Client({ name: "crumb-e2e-ts", version: "0" });
await client.connect(new StdioClientTransport({ command, args, stderr: "inherit" }));
const first = await client.callTool({ name: tool, arguments: JSON.parse(argsJSON) });

// Follow the continuations: the first crumb_read call named, then the
// "next" of each page, collecting the blobs and texts they return.
const callRE = /crumb_read (\{[^}]*\})/;
const nextRE = /next: crumb_read (\{[^}]*\})\]$/;
const texts = first.content.filter((b) => b.type === "text").map((b) => b.text);
let m = texts.map((t) => t.match(callRE)).find((x) => x);
const pages = [];
const blobs = [];
while (m && pages.length < 1000) {
  const page = await client.callTool({ name: "crumb_read", arguments: JSON.parse(m[1]) });
  pages.push({ isError: !!page.isError, types: page.content.map((b) => b.type), text: page.content[0].text });
  for (const b of page.content) {
    if (b.type === "resource" && b.resource.blob) blobs.push(b.resource.blob);
    if (b.type === "image") blobs.push(b.data);
  }
  if (page.isError) break;
  m = page.content[0].text.match(nextRE);
}
const bytes = Buffer.concat(blobs.map((b) => Buffer.from(b, "base64")));
console.log(JSON.stringify({ first, pages, data: bytes.toString("base64") }));
await client.close();
