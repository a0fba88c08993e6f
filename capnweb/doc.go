// Package capnweb implements the Cap'n Web protocol (the JSON-based
// capability RPC of the capnweb npm package, as specified by capnweb
// 0.12's protocol document) in Go: values, sessions with their import
// and export tables, a WebSocket and HTTP batch handler, and a small
// client. It knows nothing of sharevat: the vat's objects reach it as
// Targets (package webvat). docs/capnweb.md says what is covered and what
// is not.
//
// Layout: value.go and target.go are the contract with Targets;
// decode.go parses a message keeping object field order, expr.go reads
// it as an expression (no side effects), eval.go evaluates expressions
// against the tables and settles promises, call.go delivers calls in
// E-order, encode.go writes values, stub.go is the calling side (Stub,
// Promise), session.go the tables and messages, wsconn.go, handler.go,
// batch.go and client.go the transports; batchcheck.go checks a whole
// HTTP batch before any of it runs; quote.go decides what peer text an
// error may repeat (SafeName).
//
// Ownership of references: every value the session keeps (an answer, a
// call's arguments) holds one local reference per stub and one hold per
// comparable Target in it; dropping the value gives them back. The last
// reference to a peer's stub sends its release; the last hold on a
// Target calls its Release (a Target that is not comparable, such as a
// func type, is never released). Everything left is released once when
// the session ends.
package capnweb
