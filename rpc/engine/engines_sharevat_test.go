package engine

import (
	capnp "capnproto.org/go/capnp/v3"
	"capnproto.org/go/capnp/v3/rpc/transport"
)

// The conformance and hostile suites run against our engine too.
func init() {
	engines = append(engines, engineUnderTest{
		name: "sharevat",
		start: func(codec transport.Codec, boot capnp.Client) engineConn {
			return NewConn(codec, &Options{BootstrapClient: boot})
		},
	})
}

// tableSizes is the suites' view of the four tables; imports are the
// live import hooks (one per descriptor received and not yet released).
func (c *Conn) tableSizes() (questions, answers, exports, imports int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.questions.byID), len(c.answers), len(c.exports.byID), int(c.liveImports.Load())
}
