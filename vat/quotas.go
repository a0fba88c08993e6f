package vat

import "github.com/sharevat/sharevat"

// Defaults of Quotas.
const (
	// MaxSubscriptions bounds the live subscriptions of one Vat.
	MaxSubscriptions = 10_000
	// MaxConnSubscriptions bounds the live subscriptions of one
	// connection.
	MaxConnSubscriptions = 1_000
	// MaxShareSubscriptions bounds the live subscriptions of one share,
	// so no share's readers can take the whole server's.
	MaxShareSubscriptions = 1_000
	// MaxGrantSubscriptions bounds the live subscriptions made with one
	// grant (one token), whatever connections they come from.
	MaxGrantSubscriptions = 200
	// PushWindow is the default flow-control window of one
	// subscription: bytes pushed and not yet acknowledged.
	PushWindow = 512 << 10
	// ConnPushWindow is the default room all of one connection's
	// subscriptions share for pushes read and not yet acknowledged.
	ConnPushWindow = 4 << 20
	// MaxConnReads is the default number of read and snapshot answers
	// one connection may have built at once; more wait their turn.
	MaxConnReads = 2
)

// Names of the vat's quotas, as reported to Observer.LimitHit.
const (
	LimitSubscriptions      = "subscriptions"
	LimitConnSubscriptions  = "conn_subscriptions"
	LimitShareSubscriptions = "share_subscriptions"
	LimitGrantSubscriptions = "grant_subscriptions"
	LimitForks              = "forks"           // Config.MaxForks
	LimitForkDepth          = "fork_depth"      // Config.MaxForkDepth
	LimitTreeForks          = "tree_forks"      // Config.MaxTreeForks
	LimitTreeForkBytes      = "tree_fork_bytes" // Config.MaxTreeForkBytes
	LimitShareBytes         = "share_bytes"     // sharevat.Share.MaxBytes
)

// Quotas bound what one peer can make the vat hold. A subscribe over a
// subscription quota answers tooLarge; the windows and MaxConnReads
// make calls wait (flow control), never fail. Zero fields take the
// defaults above.
type Quotas struct {
	MaxSubscriptions      int
	MaxConnSubscriptions  int
	MaxShareSubscriptions int
	MaxGrantSubscriptions int
	// PushWindow is each subscription's window in bytes.
	PushWindow int64
	// ConnPushWindow is the bytes all of a connection's subscriptions may
	// have read and pushed without the subscriber's answer. A push is
	// sized before it is read, so a subscriber that does not answer
	// makes the vat hold at most this much for it.
	ConnPushWindow int64
	// MaxConnReads bounds read/snapshot answers built at once per
	// connection (each up to the read budget, 8 MiB).
	MaxConnReads int
}

func (q Quotas) withDefaults(l sharevat.Limits) Quotas {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&q.MaxSubscriptions, MaxSubscriptions)
	def(&q.MaxConnSubscriptions, MaxConnSubscriptions)
	def(&q.MaxShareSubscriptions, MaxShareSubscriptions)
	def(&q.MaxGrantSubscriptions, MaxGrantSubscriptions)
	def(&q.MaxConnReads, MaxConnReads)
	if q.PushWindow <= 0 {
		q.PushWindow = PushWindow
	}
	if q.ConnPushWindow <= 0 {
		q.ConnPushWindow = ConnPushWindow
	}
	return q
}

// maxPush is the room a subscription takes before it reads a push: enough
// for the largest op the limits admit, or a full push of small ones.
func (v *Vat) maxPush() int64 {
	l := v.cfg.Limits
	return int64(max(pushBudget, l.MaxBodyBytes+l.MaxKeyLen+2*l.MaxOpIDLen+1024))
}
