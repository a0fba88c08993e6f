package client

import (
	"capnproto.org/go/capnp/v3"

	"github.com/sharevat/sharevat/schema"
)

// NewLocalConn returns a Conn on a Vault that lives in this process
// rather than across a connection: the vat's own bootstrap client
// (vat.Bootstrap), as a door that serves the vat in-process (the MCP
// door at /mcp) holds it. The Conn owns vault and releases it on Close;
// Done never closes, since there is no connection to lose. Every call on
// it goes through the vat's rights checks, registry, quotas and live
// revocation, exactly as over /rpc.
func NewLocalConn(vault capnp.Client) *Conn { return &Conn{vault: schema.Vault(vault)} }
