package client

import (
	"capnproto.org/go/capnp/v3"

	"github.com/sharevat/sharevat"
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

// NewLocalShare returns a Share on a capability a door redeemed in this
// process (door/gate's Pass holds one per request), with the access and
// info the redeem answered. The Share owns share: Release releases it.
func NewLocalShare(share schema.Share, access sharevat.Access, info sharevat.Share) *Share {
	return &Share{cap: share, Access: access, Info: info}
}
