// Package capnweb serves the vat's capability graph over Cap'n Web
// (docs/capnweb.md, "The interface" and "Subscriptions"). It is a bridge:
// every Cap'n Web object is a capnweb.Target wrapping the vat's own Cap'n
// Proto client of the same object (schema.Vault, schema.Share, …),
// obtained in-process from vat.BootstrapMetered, so every call goes
// through the vat's rights checks, registry, quotas and live revocation,
// exactly as over /rpc.
//
// Mapping (docs/capnweb.md): methods keep the schema's names and
// positional arguments (missing trailing arguments are the schema's
// zero values); a result of one field is answered unwrapped, of several
// fields as an object with the schema's names; structs are objects with
// the schema's camelCase field names, enums strings, times Dates (null
// when unset), integers numbers (bigints above 2^53-1), op bodies JSON
// values kept in order with their numbers' text. Capabilities are
// Targets that release their Cap'n Proto client when the peer releases
// them (capnweb.Releaser).
//
// Errors: every failure rejects with an Error whose message is the vat's
// reason, "<code>: <message>", and whose code property is the code
// (webError); an unknown method answers a TypeError, as capnweb does.
//
// Subscriptions: Reader.subscribe serves a local OpSink (sink.go) that
// forwards each push to the peer's stub and returns only once the peer
// answered it, so the vat's byte window bounds the pushes unanswered.
//
// Concurrency: Target.Call decodes its arguments and starts the Cap'n
// Proto call without blocking (a call on a local vat object is queued on
// that object in call order, which keeps E-order); the Answer waits for
// the result and converts it. No lock is held while calling the vat or
// the peer.
package capnweb
