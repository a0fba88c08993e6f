// Package apply is the append engine of docs/design.md §5: the checks
// each op of a batch goes through, in order, against the state the ops
// before it left, and the content digest that tells a retry from an op id
// reused for something else. It is the one definition of those rules;
// storage backends run it inside their write transaction, through Tx.
//
// A backend prepares the batch before it takes its write transaction
// (Prepare does the work that reads no store state, so that work stays
// out of the serial section that group commit shares), then applies it
// over its view of the share inside the transaction:
//
//	prep := apply.Prepare(req.Batch, req.Limits, req.Privacy)
//	// … in the write transaction, with tx the backend's apply.Tx:
//	ack, err := prep.Apply(tx, req.Now)
//
// Prepare also runs the privacy guard (package privacy) under the
// share's policy, AppendRequest.Privacy: guard.go says how a redacted op
// is stored and still recognised when it is retried.
//
// It imports only the standard library, the root package and privacy
// (pure, no I/O). store/bolt
// and store/storetest use it; store/outbox uses Digest, so the client's
// outbox refuses a reused op id by the same rule as the server.
package apply
