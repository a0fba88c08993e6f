package loadgen

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"time"

	"github.com/sharevat/sharevat/client"
)

// connsReport is a conns run: memory per idle connection holding a live
// Reader, on the vat (from its /metrics) and in this process.
type connsReport struct {
	Conns        int       `json:"conns"`
	OpenSeconds  float64   `json:"open_seconds"`
	OpenPerSec   float64   `json:"opened_per_sec"`
	CloseSeconds float64   `json:"close_seconds"`
	Server       connsSide `json:"server"`
	Client       connsSide `json:"client"`
	ServerBefore serverMem `json:"server_before"`
	ServerAfter  serverMem `json:"server_after"`
}

// connsSide is one process's cost of the connections, per connection.
// Memory is anonymous RSS when known (the process's own memory: heap,
// stacks, runtime), else RSS.
type connsSide struct {
	HeapPerConn       float64 `json:"heap_inuse_bytes_per_conn"`
	StackPerConn      float64 `json:"stack_inuse_bytes_per_conn"`
	RSSPerConn        float64 `json:"rss_bytes_per_conn"`
	RSSAnonPerConn    float64 `json:"rss_anon_bytes_per_conn,omitempty"`
	GoroutinesPerConn float64 `json:"goroutines_per_conn"`
	MemoryPerConn     float64 `json:"memory_bytes_per_conn"`
}

// idleConn is one held connection: its Reader and nothing else.
type idleConn struct {
	c  *benchConn
	rd *client.Reader
}

func (c *idleConn) close() {
	if c == nil {
		return
	}
	if c.rd != nil {
		c.rd.Release()
	}
	c.c.close()
}

func benchConnsRun(ctx context.Context, stderr io.Writer, cfg *Config, n int) (*connsReport, error) {
	// Before the vat starts, so that it inherits the limit too.
	if err := raiseNoFile(uint64(n) + 1024); err != nil {
		return nil, err
	}
	return onTarget(ctx, cfg, func(t *benchTarget) (*connsReport, error) { return connsRun(ctx, stderr, t, n) })
}

func connsRun(ctx context.Context, stderr io.Writer, t *benchTarget, n int) (*connsReport, error) {
	toks, err := t.createShares(ctx, 1)
	if err != nil {
		return nil, err
	}
	rep := &connsReport{Conns: n}
	if rep.ServerBefore, err = stableMem(ctx, t); err != nil {
		return nil, err
	}
	cBefore := clientMem()
	progress(stderr, "conns: opening %d connections, each redeeming a token and holding a Reader", n)
	start := time.Now()
	conns, err := openIdle(ctx, t, toks[0], n)
	if err != nil {
		return nil, err
	}
	rep.OpenSeconds = time.Since(start).Seconds()
	rep.OpenPerSec = rateOf(float64(n), time.Since(start))
	after, err := stableMem(ctx, t)
	cAfter := clientMem()
	start = time.Now()
	closeConns(conns)
	rep.CloseSeconds = time.Since(start).Seconds()
	if err != nil {
		return nil, err
	}
	rep.ServerAfter = after
	rep.Server = perConn(rep.ServerBefore, after, n)
	rep.Client = perConn(cBefore, cAfter, n)
	return rep, checkConns(after, n)
}

// openIdle opens n connections, each with a live Reader.
func openIdle(ctx context.Context, t *benchTarget, token string, n int) ([]*idleConn, error) {
	conns := make([]*idleConn, n)
	err := forEach(ctx, n, benchDialPar, func(ctx context.Context, i int) error {
		c, err := openConn(ctx, t, token, false)
		if err != nil {
			return err
		}
		conns[i] = &idleConn{c: c}
		if conns[i].rd, err = c.share.Reader(ctx); err != nil {
			return fmt.Errorf("bench: reader: %w", err)
		}
		c.share.Release()
		c.share = nil
		return nil
	})
	if err != nil {
		closeConns(conns)
		return nil, err
	}
	return conns, nil
}

// checkConns makes sure the vat saw every connection.
func checkConns(after serverMem, n int) error {
	if after.Conns != 0 && after.Conns < float64(n) {
		return fmt.Errorf("bench: the vat reports %.0f live connections, want %d", after.Conns, n)
	}
	return nil
}

// stableMem waits out go-capnp's hold on finished calls, then scrapes
// the vat until heap in use and RSS move less than 1% (or 1 MiB)
// between two scrapes 250 ms apart (at most 10 s), and returns the last.
func stableMem(ctx context.Context, t *benchTarget) (serverMem, error) {
	settle(ctx, settleTime)
	p, err := t.scrape(ctx)
	if err != nil {
		return serverMem{}, err
	}
	prev := memOf(p)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for range 40 {
		select {
		case <-ctx.Done():
			return serverMem{}, ctx.Err()
		case <-tick.C:
		}
		p, err := t.scrape(ctx)
		if err != nil {
			return serverMem{}, err
		}
		cur := memOf(p)
		if near(cur.HeapInuse, prev.HeapInuse) && near(cur.RSS, prev.RSS) {
			return cur, nil
		}
		prev = cur
	}
	return prev, nil
}

// near: within 1%, or 1 MiB (what scrapes themselves may allocate; over
// 10,000 connections, 100 bytes each).
func near(a, b float64) bool { return math.Abs(a-b) <= max(0.01*math.Max(a, b), 1<<20) }

// clientMem is this process's memory after a GC (we may force our own).
func clientMem() serverMem {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	anon, file := procRSS(os.Getpid())
	return serverMem{HeapInuse: float64(m.HeapInuse), HeapAlloc: float64(m.HeapAlloc), StackInuse: float64(m.StackInuse),
		RSS: float64(selfRSS()), RSSAnon: anon, RSSFile: file, Goroutines: float64(runtime.NumGoroutine())}
}

func perConn(before, after serverMem, n int) connsSide {
	return connsSide{
		HeapPerConn:       (after.HeapInuse - before.HeapInuse) / float64(n),
		StackPerConn:      (after.StackInuse - before.StackInuse) / float64(n),
		RSSPerConn:        (after.RSS - before.RSS) / float64(n),
		RSSAnonPerConn:    (after.RSSAnon - before.RSSAnon) / float64(n),
		GoroutinesPerConn: (after.Goroutines - before.Goroutines) / float64(n),
		MemoryPerConn:     (after.memory() - before.memory()) / float64(n),
	}
}
