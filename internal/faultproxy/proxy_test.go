package faultproxy_test

import (
	"bufio"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/faultproxy"
)

// echoServer answers every line with the same line and reports each line
// it received on got. It stops at cleanup, waiting for its goroutines.
func echoServer(t *testing.T) (addr string, got <-chan string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	lines := make(chan string, 100)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					lines <- sc.Text()
					c.Write([]byte(sc.Text() + "\n"))
				}
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String(), lines
}

func mustProxy(t *testing.T, target string) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.New(target)
	require.NoError(t, err)
	t.Cleanup(func() { p.Close() })
	return p
}

func dial(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
	return c, bufio.NewReader(c)
}

func roundTrip(t *testing.T, c net.Conn, r *bufio.Reader, line string) {
	t.Helper()
	_, err := c.Write([]byte(line + "\n"))
	require.NoError(t, err)
	got, err := r.ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, line+"\n", got)
}

// TestDropThenReset: with drops on, the server still receives the
// request but the client never sees the reply; Reset cuts the connection
// (the client sees EOF) and a new connection works.
func TestDropThenReset(t *testing.T) {
	addr, got := echoServer(t)
	p := mustProxy(t, addr)
	c, r := dial(t, p.Addr())
	roundTrip(t, c, r, "hello")
	assert.Equal(t, "hello", <-got)

	p.DropServerToClient(true)
	_, err := c.Write([]byte("lost\n"))
	require.NoError(t, err)
	assert.Equal(t, "lost", <-got, "the server received the request")
	p.Reset()
	_, err = r.ReadString('\n')
	assert.ErrorIs(t, err, io.EOF, "the reply was dropped, then the connection cut")

	c2, r2 := dial(t, p.Addr())
	roundTrip(t, c2, r2, "again")
	assert.Equal(t, 2, p.Accepted())
}

func TestCutAndClose(t *testing.T) {
	addr, _ := echoServer(t)
	p := mustProxy(t, addr)
	c, r := dial(t, p.Addr())
	roundTrip(t, c, r, "x")
	p.Cut()
	_, err := r.ReadString('\n')
	assert.ErrorIs(t, err, io.EOF)

	c2, r2 := dial(t, p.Addr())
	roundTrip(t, c2, r2, "y")
	require.NoError(t, p.Close())
	_, err = r2.ReadString('\n')
	assert.ErrorIs(t, err, io.EOF, "Close cuts live connections")
	_, err = net.Dial("tcp", p.Addr())
	assert.Error(t, err, "no longer listening")
}

// TestTargetDown: a connection to a proxy whose target is down is closed.
func TestTargetDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close()
	p := mustProxy(t, addr)
	_, r := dial(t, p.Addr())
	_, err = r.ReadString('\n')
	assert.ErrorIs(t, err, io.EOF)
}
