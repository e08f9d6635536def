// Package protocol is the bridge protocol: the messages that the browser
// extension, webmcp-host and webmcp-shim exchange, and the shared types they
// carry. This comment is the protocol's reference; a new client needs nothing
// else.
//
// # Links and framing
//
//	extension <-> webmcp-host   Chrome native messaging: each message is one
//	                            frame, a 4-byte length in native byte order
//	                            followed by that many bytes of UTF-8 JSON
//	                            (package nativemsg). Host to browser frames are
//	                            at most 1 MiB, browser to host frames at most
//	                            32 MiB ([MaxBrowserChunk]); larger messages
//	                            travel as chunks (see chunk below).
//	webmcp-shim <-> webmcp-host one Unix socket per host, in the runtime
//	                            directory (package endpoint); each message is
//	                            one line of compact JSON ended by '\n', of
//	                            at most [MaxMessage] bytes.
//
// Every message is a JSON object with a "type" field; the other fields depend
// on the type. Unknown fields are ignored; unknown types are logged and
// ignored, so either side may add messages in a later minor revision.
// [ProtocolVersion] changes only when a message changes meaning.
//
// Keys are case-sensitive, and a message gives each top-level key once: the
// host routes a line by the type and id it peeks ([PeekEnvelope]) and passes
// the line on unchanged, so it refuses (logs and skips) a line whose type
// or id another reader could read otherwise: a key given twice, a case
// variant such as "ID" or "Type", an id whose escapes leave half of a
// UTF-16 surrogate pair.
//
// # Messages
//
// Each message below is written with the fields its type always has, in
// the order the Go encoder writes them ([Message.MarshalJSON]); a field is
// written even when it is zero ("frameId":0 is the top frame, "pins":[] an
// empty list), except where a field is called optional. The files of
// testdata/protocol hold a golden message of every type, direction and
// error code; the Go and the extension's Node tests check both sides
// against them.
//
// hello — first message on each link, in both directions.
//
//	extension -> host: {"type":"hello","protocol":1,"browser":{"name":"Chromium","version":"156.0.8078.73","instance":"4b1f…","extensionId":"…","extensionVersion":"0.1.0","batch":true}}
//	host -> extension: {"type":"hello","protocol":1,"host":{"pid":4242,"socket":"…/host-4242.sock","version":"0.1.0","batch":true}}
//	host -> shim:      {"type":"hello","protocol":1,"session":"s3","host":{"pid":4242,"socket":"…/host-4242.sock","version":"0.1.0"},"browser":{…}}
//	shim -> host:      {"type":"hello","protocol":1,"client":{"name":"webmcp-shim","pid":777}}
//
// The host names each shim connection with a session id ("s3"); the shim
// prefixes every call id it sends with that session id and a dot ("s3.17"),
// which lets the host route results without re-encoding them. The host sends
// its hello before the browser has said hello only when the browser is slow;
// "browser" is then absent and follows in a later hello.
//
// state — the whole picture, replacing whatever the receiver had.
//
//	{"type":"state","state":{"tabs":[Tab…],"tools":[Tool…],"contexts":[Context…],"pins":[Pin…]}}
//
// The extension sends it after hello and whenever it rebuilt its registry (a
// service-worker restart). The host keeps the latest state, applies every
// change below to it, and sends it to each shim right after its hello. A
// state over [MaxBrowserChunk] goes in parts, by the extension and by the
// host alike: the state without tools, then toolsAdded messages of at most
// 8 MiB of tools each (a receiver needs nothing special for it).
//
// Incremental changes, extension -> host -> every shim:
//
//	{"type":"tabUpdated","tab":Tab}                 add or replace one tab
//	{"type":"tabRemoved","tabId":7}                 the tab closed: it, its tools and its context go
//	{"type":"toolsAdded","tools":[Tool…]}           add or replace tools (key: tabId, frameId, name)
//	{"type":"toolsRemoved","removed":[ToolRef…]}    remove these tools
//	{"type":"context","context":Context}            a tab's UI context changed (see Context)
//	{"type":"pins","pins":[Pin…]}                   the pinned snapshots, the whole list
//
// A Tool carries what the page declared, field by field (see [Tool]):
// name, title, description, inputSchema, outputSchema (WebMCP's
// outputSchema proposal: the JSON Schema of its results) and annotations,
// each hint only when the page set it: MCP's readOnlyHint, destructiveHint,
// idempotentHint and openWorldHint, and WebMCP's untrustedContentHint,
// consequentialHint (its calls have consequences the user may not be able
// to take back) and debugging (a tool meant for debugging, which the shim
// lists only when asked to):
//
//	{"tabId":7,"frameId":0,"origin":"http://localhost:8080","name":"pay","description":"Pays the order.","outputSchema":{"type":"object"},"annotations":{"consequentialHint":true}}
//
// Calls, shim -> host -> extension, each with an id unique on the link:
//
//	{"type":"call","id":"s3.17","tabId":7,"frameId":0,"name":"select_slice","arguments":{"id":42}}
//	{"type":"cancel","id":"s3.17"}
//
// A call may say how long its caller waits for the answer, in
// milliseconds ("timeout":60000). The extension may hold a call back until
// the user consents to it (ask-before-acting, a per-site setting); a call
// still waiting for the user a little before its timeout is answered with
// "declined", so that the caller hears that the user did not answer rather
// than a bare timeout. Without "timeout" it waits until it is cancelled.
//
// A call may ask for a trace (the benchmark's per-hop profile): it carries
// a "trace" list of timing marks ([Mark]), and every hop that carries the
// call or its answer adds its own — shim.in, shim.out, host.call,
// worker.in, worker.out, relay.in, main.in, page.done, main.out,
// relay.back, worker.back, host.answer, shim.back, shim.done — so that the
// answer brings them all back. "at" is milliseconds since the Unix epoch,
// with the fraction the hop's clock gives. Calls without "trace" get none.
//
//	{"type":"call","id":"s3.20","tabId":7,"frameId":0,"name":"select_slice","arguments":{"id":42},"trace":[{"hop":"shim.in","at":1764500000000.125},{"hop":"shim.out","at":1764500000000.25}]}
//
// Requests, shim -> host -> extension, routed exactly like calls (same id
// rule, same answers, cancelled alike): everything a shim asks of the
// extension other than a tool call. Method is one of the Method constants:
//
//	{"type":"request","id":"s3.18","method":"sampleContext","params":{}}
//	{"type":"request","id":"s3.19","method":"pin","params":{"providerId":"trace.Selection"}}
//	{"type":"request","id":"s3.20","method":"unpin","params":{"providerId":"trace.Selection"}}
//	{"type":"request","id":"s3.21","method":"openPage","params":{"url":"http://localhost:8765/","background":false}}
//	{"type":"request","id":"s3.22","method":"focusTab","params":{"tabId":7}}
//	{"type":"request","id":"s3.23","method":"closeTab","params":{"tabId":7}}
//
// openPage opens a new tab (never an existing one) of the last focused
// window, asks the user first unless the site is allowed, and answers once
// the page's tools are there (or after a bounded wait) with
// {"tabId":N,"url":"…","title":"…","tools":["page tool name",…]};
// closeTab closes only a tab that openPage opened for the same shim.
//
// Answers to calls and requests, extension -> host -> the shim that asked;
// exactly one per call or request:
//
//	{"type":"result","id":"s3.17","output":<the JSON value the page's tool returned>}
//	{"type":"error","id":"s3.17","error":{"code":"tool_error","message":"no slice 42"}}
//
// A call's "arguments" and a request's "params" are JSON objects, {} when
// there are none; a call's arguments are at most [MaxArguments] (63 MiB)
// of JSON (the shim refuses bigger ones itself); a result's "output" is
// null when the tool returned nothing. An output is at most [MaxResult] (64 MiB) of JSON: the extension
// answers a call whose result is bigger with "too_large" instead (the
// page's tool ran; its result never leaves the page's frame).
//
// An error's code is one of the Code constants (tool_error, not_found,
// tab_closed, navigated, cancelled, timeout, bad_request, no_browser,
// browser_gone, not_allowed, declined, too_large, blocked, internal).
// "blocked": the page's frame shows an alert, confirm or prompt, which
// stops its scripts until the user answers it; the call did not reach the
// page (the message gives the dialog's kind and text). "no_browser": the call
// never reached a browser; "browser_gone": the browser left while the call
// ran, so it may have run. "declined" means the user said no to
// the call in the extension's consent window (Deny, closed the window, or
// did not answer in time); the page's tool did not run, and calling it
// again asks the user again. "navigated" also answers a call that itself
// navigated the page (a declarative form tool's submission: the browser's
// executeTool resolved to null); the page ran it, its response is the new
// page, and the error has "ran": true (the extension sets it when the
// frame itself answered "navigated"). Such an error may also carry
// "output": what the browser's own agent answers for it, the JSON list of
// the new document's application/ld+json data ([] when it has none), once
// that document is parsed. A cancelled call is still answered, with code
// "cancelled", unless its answer was already on the way. When a shim
// disconnects the host cancels all of that shim's calls still under way.
// When the browser disconnects, the host answers every call under way with
// "browser_gone" and exits.
//
// client and sessions — who is connected. A shim says which agents it
// serves (each MCP client's name and version from initialize, with an id of
// the shim's own for each MCP session) whenever one comes or goes: one on
// stdio, any number over HTTP:
//
//	shim -> host:      {"type":"client","client":{"name":"webmcp-shim","pid":777,"agents":[{"id":"a1","name":"claude-code","version":"2.1.0"}]}}
//
// and the host tells the extension every shim connected to it, after the
// extension's hello and whenever one connects, says who it is, or leaves.
// The "pid" the host passes on is the one the operating system recorded for
// the shim's connection (SO_PEERCRED, LOCAL_PEERPID,
// GetNamedPipeClientProcessId), never the one the shim claims, and 0 where
// the system does not say (the extension then keys on the session):
//
//	host -> extension: {"type":"sessions","sessions":[{"session":"s3","client":{"name":"webmcp-shim","pid":777,"agents":[…]}}]}
//
// A call or request the shim sends for one of its agents says which
// ("agent":"a1"). The extension shows the agents to the user, names the
// agent behind each call by its id's session prefix ("s3.17" is s3's) and
// its agent, and keeps what one agent did (a tab open_page opened) apart
// from the others, even of the same shim.
//
// chunk — both ways on the native link, for a message whose frame would
// exceed the sender's limit: [MaxHostFrame] (1 MiB) host -> extension,
// [MaxBrowserChunk] (32 MiB) extension -> host (a big result, a big state).
// The message's JSON text is cut into pieces that are sent in order as
//
//	{"type":"chunk","id":"c9","seq":0,"last":false,"data":"{\"type\":\"call\",…"}
//	{"type":"chunk","id":"c9","seq":1,"last":true,"data":"…}"}
//
// The receiver concatenates "data" of one id in seq order and, after the piece
// with "last":true, parses the text as one message and handles it as if it
// had come whole (a chunk inside it is refused). The host drops a message
// that grows past [MaxMessage]. The extension's own relay uses the same
// format between a frame and the service worker.
//
// batch — both ways on the native link, several whole messages in one
// frame, in order, each handled as if it had come alone (a batch or chunk
// inside one is refused). A side sends batches only to a peer whose hello
// said "batch":true (the host in "host", the extension in "browser"); it
// batches messages that are ready together (calls that a shim wrote at
// once, answers that came back at once) and, under load only, messages
// held a moment for others to join them (the host holds a shim's calls
// while 4 or more others are under way, 2 ms at most: host.DefaultHold;
// the page holds the answers of calls that came in one batch while others
// of it run, 2 ms at most), so that a lone message goes as it is, at once,
// and never more than the link's frame limit.
//
//	{"type":"batch","messages":[{"type":"call","id":"s3.17",…},{"type":"call","id":"s3.18",…}]}
//
// # MCP _meta keys
//
// Every _meta key the bridge defines, in an agent's tools/list and
// tools/call, is in one namespace, [MetaPrefix] ("dev.webmcp/"):
//
//	dev.webmcp/trace                 a tools/call that carries it (any value) gets the timing
//	                                 marks of every hop ([Mark]) under the same key of its result
//	                                 ("webmcp.dev/trace", [OldTraceMeta], is still read until the
//	                                 next release, and answered under that key)
//	dev.webmcp/untrustedContentHint  true on a page tool whose page set untrustedContentHint
//	dev.webmcp/consequentialHint     true on a page tool whose page set consequentialHint
//	dev.webmcp/navigated             a call's result: where the call navigated its tab
//	dev.webmcp/pageRan               a failed call's result: whether the page ran it ("no", "yes", "maybe")
//	dev.webmcp/error                 a failed call's result: the cause's code
//	dev.webmcp/resultFile            a result too big for the model's context: the file that holds it
//	dev.webmcp/resultBytes           and its size
//
// # Limits of UI context
//
// The extension cuts what a page supplies before it leaves the page, and the
// shim checks the same limits again (so a conforming extension's context
// passes unchanged); testdata/limits/uicontext.json holds the numbers, which
// Go and Node tests check:
//
//	provider data          4 KiB of UTF-8 JSON; bigger data is replaced by
//	                       {"truncated":true,"bytes":N,"preview":"<first 1 KiB>","note":"data over 4 KiB was cut: call the page's tools for the rest"}
//	summary                500 characters
//	description            2000 characters
//	note (left out)        300 characters
//	provider id            1 to 200 characters; 64 providers per document
//	selection              300 characters ("selectionCut":true when cut)
//	focused element        name 100 characters; role, name and tag at most 120
//	pins                   64
//
// A cut text ends with "…".
package protocol
