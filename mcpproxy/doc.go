// Package mcpproxy is crumb's MCP proxy: it stands between any MCP client
// (Claude Code, Claude Desktop, Codex, Cursor, an agent of one's own) and any
// MCP server, passes everything through as it is, and keeps tool results that
// are too large for the model's context out of it without losing them.
//
// A tool result that fits the budget reaches the client unchanged. A larger
// one is stored exactly and projected by [crumb.Guard] (kind "mcp"): the
// client gets a CallToolResult whose text is a small first view naming every
// omission with the exact call that reads it back, media kept as media, and
// structured content indexed without breaking the tool's outputSchema. The
// proxy adds three tools of its own (by default crumb_read, crumb_search and
// crumb_query) that read, search and query saved results from the store,
// never by running the upstream tool again.
//
// # Design: a JSON-RPC pass-through, not an SDK server
//
// The obvious build is an mcp.Server that re-serves what an mcp.Client reads
// from the upstream. It is not faithful: the SDK's typed structs decode each
// message into Go types and encode them again, and whatever those types do
// not model — a content block of a type newer than the SDK, an unknown field
// of a result or a tool, the exact shape of a JSON Schema — is changed or
// dropped on the way. The SDK server would also answer initialize with its
// own identity and capabilities instead of the upstream's.
//
// So the proxy works one layer down, on the SDK's [mcp.Transport] and
// [mcp.Connection], whose messages carry params and results as
// json.RawMessage. A session reads messages from each side and writes them to
// the other, untouched, with three exceptions:
//
//   - a tools/list response for the first page gets crumb's tools appended to
//     its "tools" array; every upstream tool keeps its bytes;
//   - a tools/call request for one of crumb's tools is answered from the store
//     and never forwarded;
//   - a tools/call response is handed to the Guard, and replaced by the
//     projection when the result was too large.
//
// Everything else — initialize and the upstream's server info, capabilities
// and instructions, resources, prompts, completions, logging, pings,
// notifications in both directions (progress, list_changed, cancellation),
// and the requests the upstream makes of the client (sampling, elicitation,
// roots) — passes through with its JSON-RPC ID, so the two sides' ID spaces
// stay their own. The proxy makes one request of its own: when a tool is
// called before the client listed the tools, it asks the upstream for
// tools/list (under an ID of its own, "crumb-tools-list-N", whose response
// the client never sees), because projecting a result needs the tool's
// outputSchema.
//
// Newline-delimited JSON on stdio, towards the client ([Stdio]) and towards
// a server run as a command, is read and written by the proxy's own stdio
// connection. It decodes only the envelope of a message (jsonrpc, id,
// method, error) and passes params and results on as the bytes that came,
// white space included, with one write per message; the SDK's codec
// decodes every value of every message into Go values, twice, and
// re-encodes it, which on a small call cost more than the upstream's work.
// It skips and logs lines that are not JSON-RPC (a banner), as the
// TypeScript and Python SDKs do, answers a batch of calls with one batch,
// and writes a message from the server over 1 MiB to a temporary file as
// it arrives instead of holding it in memory. The SDK's transports do the
// framing of streamable HTTP, towards the client and towards a server
// reached by URL (whose large responses the proxy spools first, see
// Memory).
//
// A tools/call result no larger than the tool's threshold in bytes (every
// token is at least a byte), or of a tool exempt from crumb, goes to the
// client as soon as it is read, neither stored nor projected: nothing of
// it is omitted, so there is nothing to read back.
//
// # Memory
//
// A tools/call result larger than its threshold could pass is taken apart
// before it is projected: each string longer than 64 KiB is decoded, as it
// is read from the wire or the spool file, straight into the store, once
// however often the result repeats it (structuredContent often repeats the
// text), and replaced by a note that names its ref. The Guard stores and
// projects what is left, with the stored strings as the text of their
// blocks (project.Input.Spilled), so that a 100 MB result costs the proxy
// tens of megabytes, not several copies of itself. Each string is measured
// as it streams past (its length and token estimate in the result), and
// the receipt counts the whole result, not the short record left in its
// place. A structuredContent whose bulk is many small values (an array of
// a million objects), over 8 MiB without its long strings, is stored and
// projected apart as a JSON result read as a stream, and a text block with
// its view stands in its place. A server reached by URL has each answer to
// a POST read by the proxy before the SDK's streamable client reads it: a
// response over 1 MiB goes to a temporary file, and the SDK reads a short
// placeholder of the same ID in its place (see httpSpools).
//
// # Failure
//
// A result that cannot be stored (the store unreachable, full, read-only,
// or evicting what was just written) reaches the client as crumb's other
// surfaces show it: whole after a note of why when it is no larger than
// the Guard's HardCap, else the Guard's bounded "could not store" view of
// its text, which says why and what cannot be read back. A result whose
// projection is not a valid CallToolResult passes unchanged. The log says
// why in either case. When the upstream server exits or its
// connection fails, every call in flight and every later call gets a JSON-RPC
// error that says so, with the exit status and the lines of the server's
// stderr that state what went wrong ("upstream server exited: exit status 1
// in the middle of a message (4096 bytes of it were read); its stderr says:
// Error: ..."), never a hang; crumb's own tools keep answering from the
// store.
//
// # Limits
//
// Downstream streamable HTTP (see [HTTPHandler]) delivers the upstream's
// notifications and requests on the session's standalone SSE stream rather
// than on the stream of the request they relate to: the transport routes by
// context values the SDK does not export. Clients that open the standalone
// stream (the Go SDK and the TypeScript SDK do) see everything.
package mcpproxy
