// Package sharevat holds the domain of the sharevat service: the ids,
// scopes, epochs, ops, batches and acks that every other package speaks,
// the one error type with its wire-stable codes, and the storage
// interfaces that backends implement.
//
// It imports only the standard library. Adapters (store, vat, rpc,
// client, cmd) depend on it and never on each other, except as listed in
// docs/design.md §12.
package sharevat
