package server_test

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/server"
)

// TestListenNamesPortHolder: Listen on a port this process holds fails
// saying the port is in use, by this process (on Linux), and which
// --listen to try instead.
func TestListenNamesPortHolder(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer held.Close()
	addr := held.Addr().String()
	_, err = server.Listen(addr)
	require.Error(t, err)
	assert.Contains(t, err.Error(), addr+" is already in use")
	_, port, _ := net.SplitHostPort(addr)
	n, _ := strconv.Atoi(port)
	assert.Contains(t, err.Error(), fmt.Sprintf("--listen 127.0.0.1:%d", n+1))
	if runtime.GOOS == "linux" {
		assert.Contains(t, err.Error(), fmt.Sprintf("by process %d (", os.Getpid()))
	}
}
