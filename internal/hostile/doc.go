// Package hostile is a test-only hostile peer for sharevat's /rpc
// endpoint: it dials ws://host/rpc, writes hand-built Cap'n Proto RPC
// messages (and, where a vector needs it, hand-built WebSocket frames)
// and runs the hostile-peer attack vectors — the pipelining crash of §1 and
// the memory exhaustion vectors of §2 — each bounded in time and count,
// reporting what happened: how each connection ended (close code and
// reason, or the error when no close frame came) and how much was sent
// and received. It also samples a process's resident memory.
//
// Only tests and the hostilerss measuring tool import it. Nothing here is
// a client: it never checks what the server answers beyond counting and
// decoding Returns.
package hostile
