// Package engine is sharevat's own Cap'n Proto RPC engine, level 1 of
// the protocol (bootstrap, call, return, finish, release, resolve,
// disembargo, promise pipelining), written from the documentation in
// rpc.capnp. It uses go-capnp only for the message encoding, the
// generated rpccp types and the public capability API (capnp.Client,
// ClientHook, Promise, Returner), and speaks over any Codec
// (package rpc's WebSocket Codec, which frames, budgets and writes). It
// is the one engine of every /rpc connection, server and client; go-capnp's
// own rpc package is linked only into this package's tests, as the
// conformance suite's reference.
//
// # Goroutines
//
// One per connection: the reader decodes each message and dispatches it.
// Nothing else of ours runs per call; one runs per exported promise until
// it resolves (promise.go). A call the peer makes is handed to
// the target capability's Recv on the reader (go-capnp's server.Server
// queues it to its own goroutine); the method's Return is written by the
// goroutine that returns it, and a call of ours is written by the caller's
// goroutine. The caller waits on its answer's promise, which the reader
// resolves when the Return arrives. Cancellation is context.AfterFunc
// (Finish), not a goroutine. Only a call that has to be proxied to the
// peer (a received call on a capability the peer itself hosts) costs a
// goroutine, to copy the peer's results into ours.
//
// # Tables
//
// Conn.mu guards four tables (rpc.capnp, "Four tables"), never held
// while calling application code or writing:
//
//   - questions: our calls awaiting the peer's Return, by question id. An
//     id is reused only once its Return arrived and our Finish was
//     written, whichever comes last. A Return that says noFinishNeeded
//     needs no Finish: the id is free once it arrived and no pipelined
//     Call on the question is being written. Otherwise Finish is sent as
//     soon as the Return arrives, with releaseResultCaps false (result caps are imports like
//     any other), or as soon as the caller's context ends, with
//     releaseResultCaps true (the answer fails at once); either way after
//     every Call pipelined on the question that is still being written,
//     so a Call never follows its target's Finish on the wire.
//   - answers: the peer's questions, by id, until its Finish. The
//     results are built straight in the Return message, which is kept
//     until then so that calls pipelined on the answer find their
//     capability. A Return whose results hold no capability (or an
//     exception) says noFinishNeeded and the answer is forgotten before
//     it is written (no Finish round for plain calls); a Finish the peer
//     sends anyway is ignored. Finish before the Return cancels the call's context,
//     the Return then says canceled and calls pipelined on the answer
//     fail. As in rpc.c++, a Finish naming no answer is ignored (it may
//     cross our Return) and a Call pipelined on such an id fails with an
//     exception, the connection going on. A receiverAnswer naming an answer without results waits on
//     one promise per distinct transform, at most maxAwaited per answer.
//   - exports: our capabilities the peer holds, with a reference count
//     per descriptor sent; one id per capability (found again by Brand
//     and IsSame). The peer's Release, a Finish with releaseResultCaps
//     and a Return with releaseParamCaps decrement it; at zero the client
//     is released.
//   - imports: the capabilities the peer exported to us, one hook per
//     import id while a client holds it (so two descriptors of one
//     export give clients that are IsSame). Each descriptor received
//     (senderHosted, senderPromise) counts one reference on the hook; its
//     shutdown, when the last client is released, sends Release(id, n).
//     A capability the peer hosts sent back goes as receiverHosted;
//     receiverHosted and receiverAnswer received resolve to our own
//     export or answer.
//
// # Ordering
//
// Messages are handled in arrival order. A call pipelined on an answer
// that has not returned is queued; the method's Return is written first,
// then the queued calls are delivered in order, and until they are the
// reader delivers no other call, so a call the peer makes on a result
// capability after seeing the Return never overtakes them. A Call we
// write to an import or a promisedAnswer goes out on the caller's
// goroutine, in the caller's order.
//
// # Level 1 as implemented
//
// A senderPromise import keeps being called by its import id after the
// peer's Resolve (whose capability is imported and released at once), so
// the peer's promises never shorten a path on our side. A promise of ours
// still unresolved when sent goes as senderPromise and is followed by a
// Resolve (promise.go; one goroutine per such export until it resolves or
// the connection ends), so the peer may shorten it (receiverHosted when it
// resolved to the peer's own capability). The one path we shorten is
// a capability of ours coming back in the results of a question we
// pipelined calls on (receiverHosted, receiverAnswer): it is embargoed
// (embargo.go) — calls on it wait in a local promise until our
// Disembargo(senderLoopback), written after the last pipelined Call, comes
// back as receiverLoopback. A senderLoopback from the peer is reflected at
// once (the calls it follows were forwarded before it was read, and the
// reader holds it back while a Return's queued calls are delivered), after
// checking that its target is a capability the peer hosts; one aimed at
// an answer that has not returned waits in the answer's queue, behind the
// calls pipelined on it, as rpc.c++ waits for an unresolved target.
// thirdPartyHosted is used through its vine. A tail call of the peer's
// (sendResultsTo.yourself) keeps its results for the question of ours
// whose Return names it (takeFromOtherQuestion); those results are our
// own capabilities, embargoed like any (tailcall.go). Refused:
// sendResultsTo.thirdParty (an Unimplemented exception), Disembargo
// accept, and level 3/4 messages (answered with Unimplemented).
//
// # Protocol violations
//
// A Return for an unknown question, an unknown export id, a duplicate
// question id, a Release of more references than were sent, a capability
// index outside the table, a transform that names no capability or more
// than maxAwaited transforms (or Disembargoes) awaited on one unreturned
// question ends the connection
// with an Abort saying why (a protocolError); nothing the peer sends
// panics the process (a panic while dispatching is recovered into an
// Abort). Tables grow only with what the peer keeps alive; the calls it
// may keep in flight are bounded by the codec (rpc.CodecOptions).
//
// Logs never contain message contents.
//
// # What the engine needs from its codec
//
// Encode is called from several goroutines at once (callers writing their
// Calls, methods writing their Returns, the reader writing Finishes,
// Releases and reflected Disembargoes, cancellations writing Finishes),
// so it must be safe for concurrent use, keep each goroutine's messages
// in the order it wrote them, and be done with the message when it
// returns (the engine releases it). It must not block on the peer: the
// reader itself writes, so a codec whose Encode waits until the peer
// reads can deadlock two engines that do the same; write only what the
// transport takes at once and queue the rest (as package rpc's Codec
// does), or bound the wait and fail. Encode after
// Close returns an error. Decode is called by the reader goroutine only;
// Close is called once, possibly while Encode or Decode runs, and must
// make a blocked Decode return.
package engine
