// Package faultproxy is a TCP proxy for fault-injection tests: it sits
// between a client and a real server on loopback and, on command, cuts
// every connection or silently discards what the server sends, so that a
// test can make a reply get lost after the server acted on the request.
//
// It forwards bytes untouched in both directions and does not parse them
// (WebSocket frames and Cap'n Proto messages pass through as they are), so
// its faults are at the level of the byte stream: DropServerToClient
// loses whatever the server writes while it is on, whole messages or
// parts of them, and the connection is then useless until cut.
//
// Concurrency: every method is safe for concurrent use. Each connection
// runs two goroutines (one per direction) plus one while dialing; Close
// stops and waits for all of them.
package faultproxy

import (
	"net"
	"sync"
	"time"
)

// dialTimeout bounds the dial to the target for each accepted connection.
const dialTimeout = 5 * time.Second

// Proxy forwards connections from its loopback address to a target.
type Proxy struct {
	ln     net.Listener
	target string
	wg     sync.WaitGroup

	mu       sync.Mutex
	links    map[*link]struct{}
	drop     bool // discard server→client bytes
	accepted int
	closed   bool
}

// New listens on 127.0.0.1:0 and forwards every connection to target
// (host:port). The target need not be up: a connection accepted while it
// is down is closed at once.
func New(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, target: target, links: map[*link]struct{}{}}
	p.wg.Add(1)
	go p.acceptLoop()
	return p, nil
}

// Addr is the proxy's listening address (host:port).
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Accepted is the number of client connections accepted so far.
func (p *Proxy) Accepted() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.accepted
}

// DropServerToClient turns on or off the discarding of server→client
// bytes, on every connection, current and future.
func (p *Proxy) DropServerToClient(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.drop = on
}

// Cut closes every current connection (both sides). New connections are
// still accepted.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cutLocked()
}

// Reset cuts every current connection and turns every fault off, in one
// step: a connection accepted after Reset is healthy, and none accepted
// before it survives.
func (p *Proxy) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cutLocked()
	p.drop = false
}

func (p *Proxy) cutLocked() {
	for l := range p.links {
		l.close()
	}
}

// Close stops accepting, cuts every connection and waits for every
// goroutine of the proxy to end.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	p.cutLocked()
	p.mu.Unlock()
	err := p.ln.Close()
	p.wg.Wait()
	return err
}

func (p *Proxy) acceptLoop() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		p.accepted++
		p.mu.Unlock()
		p.wg.Add(1)
		go p.connect(c)
	}
}

// connect dials the target for client c and starts forwarding.
func (p *Proxy) connect(c net.Conn) {
	defer p.wg.Done()
	s, err := net.DialTimeout("tcp", p.target, dialTimeout)
	if err != nil {
		c.Close()
		return
	}
	l := &link{client: c, server: s}
	if !p.register(l) {
		l.close()
		return
	}
	p.wg.Add(2)
	go p.pump(l, l.server, l.client, true)
	go p.pump(l, l.client, l.server, false)
}

// register adds l to the live links, unless the proxy is closed.
func (p *Proxy) register(l *link) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.links[l] = struct{}{}
	return true
}

func (p *Proxy) unregister(l *link) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.links, l)
}

// pump copies src to dst until either side fails, then closes the link.
// Bytes from the server are discarded while drop is on.
func (p *Proxy) pump(l *link, src, dst net.Conn, fromServer bool) {
	defer p.wg.Done()
	defer p.unregister(l)
	defer l.close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !(fromServer && p.dropping()) {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *Proxy) dropping() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.drop
}

// link is one proxied connection: the client's side and the server's.
type link struct {
	client, server net.Conn
	once           sync.Once
}

func (l *link) close() {
	l.once.Do(func() {
		l.client.Close()
		l.server.Close()
	})
}
