// Package client is the Go client of sharevat: it dials a vat, redeems
// tokens into capabilities, and calls them.
//
// # Capabilities and tokens
//
// A token (svt1_…) is a sturdy ref: a right that survives disconnection.
// Conn.Redeem turns it into a *Share, a live capability narrowed to the
// token's grant (Share.Access says its scope, epoch and expiry). From a
// Share come an *Appender (needs append) and a *Reader (needs read).
// Conn.RedeemAdmin redeems the server's admin token into an *Admin, which
// creates and lists shares. Every capability dies with its connection.
//
//	conn, err := client.Dial(ctx, "http://127.0.0.1:7420", nil) // or ws://127.0.0.1:7420/rpc
//	…
//	defer conn.Close() // releases every capability of the connection
//	share, err := conn.Redeem(ctx, token)
//	…
//	rd, err := share.Reader(ctx)
//	…
//	entries, head, err := rd.Read(ctx, 0, 0)
//
// The vat's URL may be given in any form every sharevat client takes
// (url.go, RPCURL): http(s)://HOST:PORT[/PREFIX], or its ws(s)://…/rpc or
// …/capnweb endpoint; the client speaks /rpc.
//
// A Redeemer holds a token instead of a connection: Redeemer.Share dials
// and redeems on demand, and again whenever the connection died. Code
// that must outlive a connection — Tail, Outbox.Flush — takes a Redeemer.
//
// Share.Grant mints a token for a narrower scope and expiry; Save (on
// Share, Appender and Reader) mints one for exactly that capability's
// rights. Share.Revoke revokes a grant and everything minted from it:
// live capabilities of those grants fail with ERevoked on their next
// call, and their tokens no longer redeem. Share.BumpEpoch revokes every
// token of the share at once.
//
// # A session's life
//
// Share.Fork (needs read) makes a new share holding this one's ops up to
// a cursor and hands the caller its owner capability and token;
// Share.Children lists the forks. Share.Delete (needs admin) deletes the
// share: every capability and token of it dies at once. Share.Update sets
// the metadata, the status among it. Share.Settings and Share.Configure
// read and replace the privacy policy and the retention, Share.Compact
// drops old ops (reads before the earliest cursor left then fail with
// ECompacted). With the admin token, Admin.List pages through the shares
// with a sharevat.ListFilter, Admin.ListAll iterates over every page and
// Admin.Statuses answers every share's status.
//
// # Appending
//
// Appender.Append sends one batch and returns its ack once the batch is
// durable on the server. A transport error leaves the outcome unknown:
// send the same ops again (same op ids) and the ack tells which were
// applied before (duplicate) and which now. An Outbox does that for you,
// across crashes too: Enqueue stores ops in a local file before it
// returns, and Flush (or Run) sends them through a Redeemer until each is
// acked; OutboxResult says what became of each op.
//
// # Following a share
//
//   - Tail(ctx, redeemer, from, handler): one op at a time, each exactly
//     once, for as long as ctx lasts, reconnecting and redeeming again
//     after any transport failure. Use it for a consumer that must keep
//     up whatever happens to the connection.
//   - Reader.Tail(ctx, from, handler): the same on a Reader already
//     held, for as long as its connection lasts; it returns the cursor to
//     resume from, and EUnavailable when the connection is lost.
//   - Reader.Subscribe(ctx, from, handler): the primitive under both:
//     whole batches as the server pushes them, with flow control, and a
//     Subscription to Close; ending and resuming are the caller's.
//   - Reader.Read and ReadAll: pages of the log up to the head, no
//     waiting; Reader.Snapshot: the materialized state.
//
// # Errors
//
// Errors from the server come back as *sharevat.Error with a wire-stable
// code: use errors.Is(err, sharevat.ErrRevoked) or sharevat.ErrorCode(err).
// A lost connection is EUnavailable. IsPermanent tells an error that
// retrying will not cure (unauthorized, revoked, permission denied,
// invalid, …) from a transient one.
//
// # Lifetimes and concurrency
//
// Release a capability when it is no longer needed; closing the Conn
// releases them all. The Share a Redeemer returns belongs to it (Close
// the Redeemer instead). Calls on a Conn and its capabilities may run
// concurrently (Share.Fetch rewrites the Share's Info and Access fields,
// so not alongside reads of them); a Redeemer and an Outbox are safe for
// concurrent use. Tail and Subscribe handlers run on a goroutine of the
// connection, one call at a time.
package client
