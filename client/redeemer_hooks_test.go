package client_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/client"
)

// hookLog records the Redeemer's hooks.
type hookLog struct {
	mu      sync.Mutex
	retries []error
	waits   []time.Duration
	redeems int
	lost    []error
}

func (h *hookLog) options() *client.RedeemerOptions {
	return &client.RedeemerOptions{
		MinBackoff: 5 * time.Millisecond, MaxBackoff: 50 * time.Millisecond,
		OnRetry: func(err error, wait time.Duration) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.retries, h.waits = append(h.retries, err), append(h.waits, wait)
		},
		OnRedeem: func() { h.mu.Lock(); h.redeems++; h.mu.Unlock() },
		OnLost:   func(err error) { h.mu.Lock(); h.lost = append(h.lost, err); h.mu.Unlock() },
	}
}

func (h *hookLog) counts() (retries, redeems, lost int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.retries), h.redeems, len(h.lost)
}

// TestRedeemerOnRetry: with nothing listening, each failed dial is
// reported with its cause (connection refused) and the wait before the
// next try, within the backoff's bounds.
func TestRedeemerOnRetry(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())

	var h hookLog
	r := client.NewRedeemer("ws://"+addr+"/rpc", "svt1_aaaaaaaaaaaaaaaaaaaaaaaa_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", h.options())
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = r.Share(ctx)
	require.Error(t, err)

	retries, redeems, _ := h.counts()
	require.GreaterOrEqual(t, retries, 2, "every failed dial is reported")
	assert.Zero(t, redeems)
	h.mu.Lock()
	defer h.mu.Unlock()
	assert.ErrorContains(t, h.retries[0], "connection refused", "the cause is named")
	for _, w := range h.waits {
		assert.True(t, w > 0 && w <= 50*time.Millisecond, "wait %s within the backoff", w)
	}
}

// TestRedeemerOnRedeemAndOnLost: a redeem is reported, a lost connection
// (the proxy cuts it) is reported when a call fails on it, and the next
// Share redeems again.
func TestRedeemerOnRedeemAndOnLost(t *testing.T) {
	tv := mustServeOutboxVat(t)
	token := tv.mustCreate(t)
	p := tv.mustProxy(t)
	var h hookLog
	r := client.NewRedeemer("ws://"+p.Addr()+"/rpc", token, h.options())
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	sh, err := r.Share(ctx)
	require.NoError(t, err)
	_, redeems, lost := h.counts()
	assert.Equal(t, 1, redeems)
	assert.Zero(t, lost)

	p.Cut()
	_, err = sh.Reader(ctx)
	for err == nil { // the cut reaches the client's side asynchronously
		_, err = sh.Reader(ctx)
	}
	r.Fail(sh, err)
	_, _, lost = h.counts()
	assert.Equal(t, 1, lost, "the lost connection is reported")

	_, err = r.Share(ctx)
	require.NoError(t, err)
	_, redeems, _ = h.counts()
	assert.Equal(t, 2, redeems, "redeemed again on a new connection")
}

// TestOutboxOnSend: each batch is reported with its size before it is
// sent.
func TestOutboxOnSend(t *testing.T) {
	tv := mustServeOutboxVat(t)
	token := tv.mustCreate(t)
	var mu sync.Mutex
	sent := map[string]int{}
	o := mustOutbox(t, client.OutboxOptions{MaxBatchOps: 2, OnSend: func(id string, n int) {
		mu.Lock()
		defer mu.Unlock()
		sent[id] += n
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := o.Enqueue(ctx, testOps("s", 5)...)
	require.NoError(t, err)
	require.NoError(t, o.Flush(ctx, fastRedeemer(t, tv.URL, token)))

	mu.Lock()
	defer mu.Unlock()
	assert.Len(t, sent, 3, "three batches: 2, 2 and 1 ops")
	total := 0
	for _, n := range sent {
		total += n
	}
	assert.Equal(t, 5, total)
}
