#!/bin/sh
# Regenerates schema/*.capnp.go with the capnp compiler and capnpc-go at
# the version pinned in go.mod. Run from the schema directory (go generate
# does that).
set -eu
command -v capnp >/dev/null || {
	echo "capnpc.sh: the capnp compiler is missing (Debian: apt-get install capnproto)" >&2
	exit 1
}
std=$(go list -m -f '{{.Dir}}' capnproto.org/go/capnp/v3)/std
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/capnpc-go" capnproto.org/go/capnp/v3/capnpc-go
PATH="$bin:$PATH" capnp compile -I"$std" -ogo *.capnp
gofmt -w *.capnp.go
# Record which schema text the generated code came from; schema_test.go
# fails when the .capnp changes without a regeneration.
sha256sum *.capnp > capnp.sum
