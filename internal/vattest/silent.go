package vattest

import (
	"net"
	"testing"

	"github.com/stretchr/testify/require"
)

// SilentServer listens on loopback, accepts every connection and never
// answers: a server that takes the connection but hangs. It returns the
// WebSocket URL of its /rpc and a channel told of each accept (as far as
// its buffer of 16 holds; later accepts are not told). The listener and
// the held connections are closed at tb's cleanup.
func SilentServer(tb testing.TB) (url string, accepted <-chan struct{}) {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(tb, err)
	acc := make(chan struct{}, 16)
	done := make(chan struct{})
	go func() {
		defer close(done)
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
			select {
			case acc <- struct{}{}:
			default:
			}
		}
	}()
	tb.Cleanup(func() { ln.Close(); <-done })
	return "ws://" + ln.Addr().String() + "/rpc", acc
}
