// Package loadgen is the load generator behind `sharevat bench`: it
// drives a vat over real Cap'n Proto RPC connections and reports what the
// vat achieved next to the ceilings it cannot beat, measured in the same
// run (docs/performance.md).
//
// The vat is by default the bench's own: Config.Exe's `serve`, started as
// a child process on a free loopback port with a fresh temporary data
// directory, removed at the end; or a running vat on this machine
// (Config.Server and its admin token). Its side of the figures (heap,
// RSS, goroutines, CPU, group-commit counters) is read from its /metrics
// and, for the bench's own child, the anonymous/file split of its RSS
// from /proc/<pid>/status.
//
// The transport ceiling of an append run is a raw WebSocket echo to a
// helper process, Config.Exe started with EchoHelperEnv set (ServeEcho),
// alternated with the ping phases (transport.go).
//
// Modes, and the Config fields each reads:
//
//   - append: Clients connections appending Ops-op batches of Body-byte
//     JSON bodies, one share each or all on one (Shares), Inflight calls
//     at a time, for Duration or Count batches: ops/s, latency, the vat's
//     memory and commits, allocations per op.
//   - restore: redeeming the owner token over and over (Clients,
//     Inflight, Duration or Count): latency against a no-op call.
//   - tail: one writer at Rate ops/s and Subscribers live subscribers
//     for Duration: delivery latency, and a check that every subscriber
//     got every op once, in order.
//   - conns: Conns idle connections, each holding a live Reader: the
//     vat's (and the bench's) memory per connection.
//   - soak: Rate paced 1-op appends/s over Clients connections for
//     Duration: the vat's memory every Sample, its growth, also per GiB
//     stored; with RetainOps or RetainFor, each share's retention is set
//     first, so the vat compacts the logs meanwhile, and the report says
//     how many ops it compacted.
//   - all: the performance targets, each on a fresh vat (the
//     soak, for SoakDuration, only with Soak).
//
// The ceilings, run before (ping) and after (storage) the measured phase,
// never alongside it:
//
//   - the RPC ceiling: a no-op call (Vault.ping) over the same
//     connections and transport;
//   - the storage ceiling: bbolt's raw durable commit rate for
//     transactions of the run's batch shape, on the vat's disk
//     (bolt.CommitCeiling); for one client with one call in flight also
//     paced, with the process idle for a ping's p50 between transactions,
//     as the vat is between sequential calls.
//
// Every timed phase starts after an unmeasured warm-up of a tenth of its
// length (at most 1 s), and phases are separated by a pause that waits
// out go-capnp's hold on finished calls (docs/design.md §10).
// Latencies are per call, client side, in a log-linear histogram with 1%
// resolution.
package loadgen
