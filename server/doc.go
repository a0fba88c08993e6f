// Package server owns a sharevat vat process: it opens the store (the
// bbolt file under the data directory, or PostgreSQL), builds the vat,
// mints the admin token on first start, runs the retention job, and
// serves every route on one listener: /rpc (Cap'n Proto over WebSocket),
// /capnweb (Cap'n Web), /s/ (the share page), /healthz, /metrics,
// /backup and an index page at /.
//
// A process binds first (Listen, which writes nothing and names the
// process holding a busy port), then builds the server (New), serves
// (Serve) and, on a signal, closes it (Close). cmd/sharevat maps flags
// and environment variables to a Config and handles signals and exit
// codes; tests start the whole server in-process the same way
// (internal/servertest).
//
// Start order (New): TLS files, data directory, profiling listener
// (Config.DebugListen), metrics registry, store, pepper, vat (its
// retention job starts with it), admin token, the RPC and Cap'n Web
// handlers. Serve mounts the routes behind the Host and Origin guards
// and announces the URL.
//
// Shutdown order (Close): stop accepting and wait for plain HTTP
// requests (http.Server.Shutdown), close the Cap'n Web sessions, close
// the RPC connections and wait for them, then the vat (its
// subscriptions end, last-use times are saved, the retention job
// stops), then the store (the write-ahead log is applied and the file
// closed), then the profiling listener. Nothing acknowledged is lost:
// every append was durable before its answer was sent.
package server
