// Package schema holds the sharevat Cap'n Proto wire contract
// (sharevat.capnp) and the Go generated from it. Regenerate with
// `make generate` (needs the capnp compiler); `make check-generate`
// fails when the committed code is stale.
package schema

//go:generate sh ../tools/capnpc.sh
