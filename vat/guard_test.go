package vat_test

import (
	"testing"

	capnp "capnproto.org/go/capnp/v3"
	"github.com/stretchr/testify/assert"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
)

// TestPipelinedCallsCannotCrash: calls go-capnp v3.1.0-alpha.2 would
// deliver to nothing (and crash the process on) are answered with an
// exception instead, the connection or another one keeps working:
// an unknown method and an unknown interface on a Reader still pending,
// a call pipelined on the answer of an unknown method, and one pipelined
// on a call that fails. (A call on a field that holds no capability is
// refused by the RPC engine: rpc's TestPipelinedOnNoCapability.)
func TestPipelinedCallsCannotCrash(t *testing.T) {
	tv := MustServe(t, sharevat.Limits{}, nil)
	owner := tv.MustCreate(t, "guard")
	vault := mustRawVault(t, tv)

	call := func(c capnp.Client, m capnp.Method) error {
		ans, release := c.SendCall(bg, capnp.Send{Method: m})
		defer release()
		_, err := ans.Struct()
		return err
	}
	for i := range 20 { // the pending Reader is a race with its answer: repeat
		fut, release := vault.Restore(bg, func(p schema.Vault_restore_Params) error { return p.SetToken(owner) })
		rfut, rrelease := fut.Share().Reader(bg, nil)
		pending := capnp.Client(rfut.Reader())
		err1 := call(pending, capnp.Method{InterfaceID: schema.Reader_TypeID, MethodID: 999})
		err2 := call(pending, capnp.Method{InterfaceID: 0xdeadbeeff00dcafe, MethodID: 0})
		rrelease()
		release()
		assert.ErrorContains(t, err1, "unimplemented", "unknown method on a pending Reader (%d)", i)
		assert.ErrorContains(t, err2, "unimplemented", "unknown interface on a pending Reader (%d)", i)
	}

	unknown, release := capnp.Client(vault).SendCall(bg, capnp.Send{Method: capnp.Method{InterfaceID: schema.Vault_TypeID, MethodID: 77}})
	onUnknown := unknown.Field(0, nil).Client()
	assert.Error(t, call(onUnknown, capnp.Method{InterfaceID: schema.Share_TypeID, MethodID: 0}), "a call on an unknown method's answer")
	release()

	failed, release := vault.Restore(bg, func(p schema.Vault_restore_Params) error { return p.SetToken("svt1_nope") })
	assert.Error(t, call(capnp.Client(failed.Share()), capnp.Method{InterfaceID: schema.Share_TypeID, MethodID: 0}), "a call on a failed restore's share")
	release()

	tv.MustRestore(t, owner) // the vat still serves
}
