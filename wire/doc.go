// Package wire converts between the domain types of package sharevat and
// the Cap'n Proto structs of package schema. The vat (server side) and the
// client both use it, so that a field is encoded in exactly one place.
// ServerError reads the vat's "code: message" back out of a Cap'n Proto
// call's error, for the Go client and the Cap'n Web bridge.
//
// Conventions (see schema/sharevat.capnp): times are Unix nanoseconds with
// 0 for the zero time; scopes are structs of booleans; a Meta text field
// that is null means "not given" in an update.
package wire
