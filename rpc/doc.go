// Package rpc carries Cap'n Proto RPC (package rpc/engine, our own
// level-1 engine, on both sides) over WebSocket: the server side is an
// http.Handler (Handler), the client side is Dial, and Codec is the
// engine.Codec both use.
//
// # Wire framing
//
// Each Cap'n Proto RPC message travels as exactly one binary WebSocket
// message, the convention of the reference C++ capnp::WebSocketMessageStream,
// capnp-ts and capnp-es. The server always sends it as a single frame
// (opcode 0x2, FIN set); the Go client does too for messages up to 64 KiB
// and splits larger ones into continuation frames, which every WebSocket
// implementation reassembles. The message payload is the standard unpacked
// Cap'n Proto stream framing, all integers little-endian:
//
//	offset 0          uint32  number of segments minus one (N-1), N <= 512
//	offset 4          uint32  size of segment 0, in 8-byte words
//	offset 8          uint32  size of segment 1 ... one uint32 per segment
//	                  [4 zero bytes if N is even, to align to 8 bytes]
//	offset 8*ceil((N+1)/2)    segment 0, then segment 1, ... back to back
//
// For example, a one-segment message of 3 words is a 32-byte frame:
// 00 00 00 00 | 03 00 00 00 | 24 bytes of segment 0. The payload must be
// exactly that long: a frame with bytes after the last segment, with fewer
// bytes than the table announces, with more than 512 segments, or whose
// root pointer cannot be read is rejected. Packed encoding is not used.
//
// # Close codes
//
// A connection that breaks the framing is closed with a WebSocket close
// frame whose reason says why (each reason fits the 123 bytes allowed):
//
//	1000  (empty)                              orderly close by either side
//	1001  "server shutting down"               Handler.Close
//	1001  "sharevat: keepalive timeout: nothing received for 1m0s"
//	1003  "sharevat: text frames are not supported; send one Cap'n Proto message per binary frame"
//	1007  "sharevat: malformed Cap'n Proto message"
//	1008  "sharevat: more than 1024 calls in flight"     (the configured MaxInflightCalls)
//	1008  "sharevat: connection memory budget of 67108864 bytes exceeded"
//	1008  "sharevat: 580000 capabilities in one message (limit 64)"
//	1008  "sharevat: message not complete within 30s of its first frame"
//	1013  "sharevat: server memory budget exhausted; try again later"
//	1009  "sharevat: frame larger than 16777216 bytes"   (the configured ReadLimit)
//	1011  "sharevat: internal error"           a recovered panic in this package
//	                                           or in HandlerOptions.Bootstrap
//
// gorilla/websocket itself answers WebSocket protocol errors (bad opcode,
// unmasked client frame, ...) with 1002. The side that receives a close
// frame echoes its code. After sending its close frame, a side keeps
// reading (dropping data) for up to 2 seconds until the peer's close frame
// arrives, then closes TCP; so the peer reads the reason rather than a reset.
//
// Dial honours its ctx for the whole handshake (TCP, TLS, HTTP upgrade):
// once ctx is cancelled or its deadline passes, the socket is closed and
// Dial returns a *DialError naming the URL and wrapping ctx's error. The
// handshake is bounded by 30s in any case.
//
// The HTTP side answers before upgrading: 426 to a request that is not a
// WebSocket upgrade, 403 to a disallowed Origin, 503 when MaxConns or
// MaxConnsPerIP is reached or the Handler is closed.
//
// # Keepalive
//
// Both sides send a WebSocket ping every PingInterval (default 30s) and
// answer pings with pongs. The read deadline is pushed PongTimeout (default
// 60s) into the future by every message and every pong received; when it
// passes, the connection is closed with 1001 and the keepalive reason.
//
// # Limits
//
// No sequence of bytes from a peer may crash the process or grow its
// memory without bound. Per connection (budget.go, questions.go):
//
//   - Calls in flight: a Call or Bootstrap counts from the moment it is
//     read until our Return for it is written. The transport cannot fail
//     a single call, so the call one over MaxInflightCalls (default 1024)
//     closes the connection with 1008.
//   - A memory budget in bytes (ConnMemory, default 64 MiB) covers what
//     the vat holds for the peer: the message being read (charged from
//     its segment table before the rest is read), each call's message
//     plus 3 KiB while it runs, each Return plus 3 KiB until the peer's
//     Finish (the engine keeps answers until then for pipelining; a
//     Return that says noFinishNeeded, one whose results hold no
//     capability, is kept by no one once written), frames
//     queued for sending, and our own calls to the peer (subscription
//     pushes) until its Return; the application adds what it builds for
//     the peer through Peer.Meter. Exceeding it closes the connection
//     with 1008. A server-wide MemoryPool, which every connection also
//     draws from, closes the connection holding the most (1013) when a
//     charge would exhaust it, and the charge waits for its bytes; a
//     connection that itself holds the most is the one refused.
//   - Encode never blocks on a slow peer: it writes a frame itself only
//     when nothing is queued and the socket's send buffer has room for it
//     (no hand-off to a writer goroutine in the common case); otherwise
//     the frame waits in a queue of ours (sendq.go), counted in the
//     budget, so a peer that stops reading is closed instead of holding
//     up every goroutine that writes to it.
//   - At most MaxCapsPerMessage (default 64) capability descriptors per
//     incoming message; one message must arrive within AssembleTimeout
//     (default 30s) of its first frame, pings between frames or not.
//
// Over a limit the connection stops reading at once (so the engine shuts it
// down and cancels the peer's calls in flight), sends its close frame if
// the write side is free within a second, and closes. Per server: MaxConns
// and MaxConnsPerIP refuse the upgrade with 503 (LoopbackExempt lets
// loopback addresses past MaxConnsPerIP, not MaxConns). Each limit that closes or
// refuses a connection is reported to HandlerOptions.OnLimit by name
// (the Limit* constants). Capabilities and subscriptions held per
// connection are capped by package vat.
//
// # Engine
//
// Every connection runs package rpc/engine; go-capnp v3 provides the
// message encoding, the generated code and the capability API, and its
// own rpc package is not linked in (it serves only as the reference of
// rpc/engine's conformance tests). The engine itself handles what crashed
// or hung go-capnp's: a call pipelined on a field that holds
// no capability, or on a question never asked, fails safely (an Abort or
// an exception Return), so the transport does not vet call targets; and
// it sends each Finish as soon as the Return arrives, so an answer's
// room comes back without a wait.
//
// # Concurrency
//
// Per connection there is the engine's reader (blocked in Codec.Decode,
// dispatching each message), callers and methods writing through
// Codec.Encode on their own goroutines, a writer goroutine only while
// frames are queued (sendq.go), and the pinger, which Codec.Close stops and
// waits for. On the server, the goroutine that net/http runs ServeHTTP on
// waits for the connection to end; Handler.Close signals each connection
// and waits for its ServeHTTP to return.
//
// Locks in Codec: a write lock (a one-slot channel, so waiting can time out)
// serializes data frames, pings, pongs and the close frame, so nothing is
// written after the close frame; a read mutex makes Decode and the close
// drain the only readers; a state mutex guards flags and is never held
// across blocking I/O; a fourth mutex guards the set of calls in flight,
// held only to update it. Handler.mu guards the connection set only. No lock
// of this package is held while calling application code (Bootstrap,
// capabilities) or the engine. A panic in this package's per-connection code
// or in Bootstrap is recovered, logged, and closes that connection only.
//
// Logs never contain frame contents.
package rpc
