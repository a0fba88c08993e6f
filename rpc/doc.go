// Package rpc carries Cap'n Proto RPC (go-capnp's rpc.Conn) over
// WebSocket: the server side is an http.Handler (Handler), the client side
// is Dial, and Codec is the go-capnp transport.Codec both use.
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
// WebSocket upgrade, 403 to a disallowed Origin, 503 when MaxConns is
// reached or the Handler is closed.
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
// Per connection, the server caps the calls the client has in flight:
// a call counts from the moment its Call message is read until the Return
// for it is written (Codec tracks question ids; Bootstrap questions do not
// count; a Return stuck behind a client that stops reading still counts). go-capnp has no quota of its own — each call it reads takes a
// goroutine or waits, message and all, in its target's unbounded queue —
// and the transport cannot fail a single call, so the call one over
// HandlerOptions.MaxInflightCalls (default 1024) closes that connection
// with 1008 and nothing else. A well-behaved client waits for answers long
// before it has a thousand calls outstanding; one that pipelines thousands
// without waiting is misbehaving. A Dial client does not limit the calls
// its server makes (those are pushes, bounded by flow control). Frame size
// (ReadLimit) and the number of connections (MaxConns) are capped too;
// capabilities held per connection are capped by package vat.
//
// # Concurrency
//
// Per connection there are go-capnp's goroutines (a receive loop, a reader
// blocked in Codec.Decode, a sender calling Codec.Encode, and one per
// call in flight) plus one of ours: the pinger, which Codec.Close stops and
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
// capabilities) or go-capnp. A panic in this package's per-connection code
// or in Bootstrap is recovered, logged, and closes that connection only.
//
// Logs never contain frame contents.
package rpc
