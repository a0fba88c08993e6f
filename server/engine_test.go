package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/sharevat/sharevat/internal/servertest"
	"github.com/sharevat/sharevat/rpc"
	"github.com/sharevat/sharevat/server"
)

// TestServerRunsTheChosenRPCEngine: Config.RPCEngine reaches /rpc, and
// the whole walk (redeem the admin token, create a share, append, and
// the share restored over /capnweb in the route test) works on our own
// engine: the connection's log line names the engine it ran.
func TestServerRunsTheChosenRPCEngine(t *testing.T) {
	for _, e := range []rpc.Engine{rpc.EngineSharevat, rpc.EngineGoCapnp} {
		t.Run(string(e), func(t *testing.T) {
			s := servertest.Start(t, servertest.Options{Config: func(c *server.Config) { c.RPCEngine = e }})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			createAndAppend(ctx, t, s)
			assert.Contains(t, s.Log.String(), "engine="+string(e))
		})
	}
}
