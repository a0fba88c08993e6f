// Package capnweb implements the Cap'n Web protocol (the JSON-based
// capability RPC of the capnweb npm package, as specified by capnweb
// 0.12's protocol document) in Go: values, sessions with their import
// and export tables, a WebSocket and HTTP batch handler, and a small
// client. It knows nothing of sharevat: the vat's objects reach it as
// Targets (package webvat). docs/capnweb.md says what is covered and what
// is not.
package capnweb
