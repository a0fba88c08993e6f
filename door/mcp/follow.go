package mcp

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
)

// Follow's wait: default and bound, in seconds.
const (
	defaultWait = 20
	maxWait     = 60
)

// follow answers the ops after fromCursor, waiting up to waitSeconds for
// the first when there are none yet: a bounded long poll, which every
// MCP client can call (resource subscriptions are not supported by most
// agents; docs/mcp.md).
func (d *door) follow(ctx context.Context, req *mcp.CallToolRequest, in readIn) (*mcp.CallToolResult, readOut, error) {
	var out readOut
	limit, err := page(in.Limit)
	if err != nil {
		return nil, out, err
	}
	wait := in.WaitSeconds
	switch {
	case wait == 0:
		wait = defaultWait
	case wait < 0 || wait > maxWait:
		return nil, out, invalid("waitSeconds must be 1 to %d", maxWait)
	}
	extra := time.Duration(wait) * time.Second
	err = d.withShare(ctx, req, extra, func(ctx context.Context, sh *client.Share) error {
		var err error
		out, err = followPage(ctx, sh, sharevat.Cursor(in.FromCursor), limit, extra)
		return err
	})
	return nil, out, err
}

// followPage reads after from; if nothing is there, it subscribes from
// there and answers the first push, or nothing once wait has passed.
func followPage(ctx context.Context, sh *client.Share, from sharevat.Cursor, limit int, wait time.Duration) (readOut, error) {
	r, err := sh.Reader(ctx)
	if err != nil {
		return readOut{}, err
	}
	defer r.Release()
	entries, head, err := r.Read(ctx, from, limit)
	if err != nil || len(entries) > 0 {
		return readOf(entries, from, head), err
	}
	pushed := make(chan []sharevat.Entry, 1)
	sub, err := r.Subscribe(ctx, from, func(es []sharevat.Entry) error {
		select {
		case pushed <- es:
		default: // the first push is the answer; later ones are read next call
		}
		return nil
	})
	if err != nil {
		return readOut{}, err
	}
	defer sub.Close()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case es := <-pushed:
		if len(es) == 0 {
			return readOf(nil, from, head), nil
		}
		es = es[:min(len(es), limit)]
		return readOf(es, from, max(head, es[len(es)-1].Cursor)), nil
	case <-sub.Done():
		return readOf(nil, from, head), sub.Err()
	case <-timer.C:
		return readOf(nil, from, head), nil
	case <-ctx.Done():
		return readOut{}, ctx.Err()
	}
}
