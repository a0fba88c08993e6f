// Package store groups the storage backends of sharevat and the contract
// suite they all pass (docs/design.md §8).
//
//   - store/bolt: the embedded bbolt backend, one file in the data
//     directory. It is the only package that imports bbolt.
//   - store/storetest: the contract suite, run by every backend's tests
//     through storetest.Run.
//
// Backends implement sharevat.Store and translate their own errors into
// domain errors (sharevat.Errorf) where the interface documents a code;
// every other failure is returned wrapped and becomes EInternal at the
// RPC boundary.
package store
