package vat_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/vat"
)

// retentionDriver drives a vat's retention job by hand: each tick starts
// a pass (the send returns once the job took it), and every pass, ticked
// or woken by Configure, is reported on passes.
type retentionDriver struct {
	ticks  chan time.Time
	passes chan vat.RetentionPass
	clock  *clock
}

func newRetentionDriver() *retentionDriver {
	return &retentionDriver{ticks: make(chan time.Time), passes: make(chan vat.RetentionPass, 64), clock: newClock()}
}

func (d *retentionDriver) config(ops int) func(*vat.Config) {
	return func(c *vat.Config) {
		c.Now = d.clock.Now
		c.Retention = vat.Retention{Ticks: d.ticks, Ops: ops, OnPass: func(p vat.RetentionPass) { d.passes <- p }}
	}
}

// pass starts one pass and returns the next pass reported: that one, or
// one Configure's wake-up started before it.
func (d *retentionDriver) pass(t *testing.T) vat.RetentionPass {
	t.Helper()
	timeout := time.After(patience)
	select {
	case d.ticks <- d.clock.Now():
	case <-timeout:
		t.Fatal("the retention job took no tick")
	}
	select {
	case p := <-d.passes:
		return p
	case <-timeout:
		t.Fatal("no retention pass")
		return vat.RetentionPass{}
	}
}

// drain runs passes until two in a row drop nothing, and returns what
// they dropped in all. (At most one pass, woken by an earlier Configure,
// may have started before the caller's last change; the second is ours.)
func (d *retentionDriver) drain(t *testing.T) uint64 {
	t.Helper()
	total, idle := uint64(0), 0
	for range 100 {
		p := d.pass(t)
		if total += p.Dropped; p.Dropped > 0 {
			idle = 0
		} else if idle++; idle == 2 {
			return total
		}
	}
	t.Fatal("retention never settled")
	return 0
}

func earliestOf(t *testing.T, sh *client.Share) sharevat.Cursor {
	t.Helper()
	info, _, err := sh.Fetch(bg)
	require.NoError(t, err)
	return info.Earliest
}

// TestRetentionByCount: with RetainOps set, the job compacts all but the
// last N ops, within its budget per pass (so over several passes), and
// a retried op it dropped is still a duplicate. --off stops it.
func TestRetentionByCount(t *testing.T) { onEachStore(t, testRetentionByCount) }

func testRetentionByCount(t *testing.T, on storeKind) {
	d := newRetentionDriver()
	tv := on.serveConfig(t, nil, d.config(4))
	a := tv.MustRestore(t, tv.MustCreate(t, "keep3"))
	appendN(t, a, "a", 10, 10, `{}`)
	other := tv.MustRestore(t, tv.MustCreate(t, "keep-all"))
	appendN(t, other, "o", 10, 10, `{}`)

	set, err := a.Configure(bg, sharevat.Settings{RetainOps: 3})
	require.NoError(t, err)
	assert.Equal(t, uint64(3), set.RetainOps)
	var passes []uint64
	for earliestOf(t, a) < 8 {
		p := d.pass(t)
		assert.LessOrEqual(t, p.Dropped, uint64(4), "at most the budget per pass")
		passes = append(passes, p.Dropped)
		require.Less(t, len(passes), 20, "retention makes progress")
	}
	assert.Equal(t, sharevat.Cursor(8), earliestOf(t, a), "the last 3 of 10 ops stay")
	assert.Equal(t, sharevat.Cursor(1), earliestOf(t, other), "a share without retention is untouched")
	assert.Equal(t, uint64(7), tv.Vat.RetentionStats().Dropped)

	app, err := a.Appender(bg)
	require.NoError(t, err)
	ack, err := app.Append(bg, &sharevat.Batch{BatchID: "late", Epoch: 1, Ops: []sharevat.Op{op("a-0", "event", "", `{}`)}})
	require.NoError(t, err)
	assert.Equal(t, sharevat.StatusDuplicate, ack.Results[0].Status)
	assert.Equal(t, sharevat.Cursor(1), ack.Results[0].Cursor)

	d.drain(t) // no pass from before the change below is left
	_, err = a.Configure(bg, sharevat.Settings{})
	require.NoError(t, err)
	appendN(t, a, "b", 5, 5, `{}`)
	assert.Zero(t, d.drain(t), "retention off: nothing more is dropped")
	assert.Equal(t, sharevat.Cursor(8), earliestOf(t, a))
}

// TestRetentionByAge: with RetainFor set, the job drops the ops appended
// before now-D (by the vat's clock), and with RetainOps too, an op goes
// only once both allow it; when every op is old, every op goes.
func TestRetentionByAge(t *testing.T) { onEachStore(t, testRetentionByAge) }

func testRetentionByAge(t *testing.T, on storeKind) {
	d := newRetentionDriver()
	tv := on.serveConfig(t, nil, d.config(0))
	a := tv.MustRestore(t, tv.MustCreate(t, "by-age"))
	appendN(t, a, "old", 5, 5, `{}`)
	d.clock.Advance(2 * time.Hour)
	appendN(t, a, "new", 5, 5, `{}`)

	_, err := a.Configure(bg, sharevat.Settings{RetainFor: time.Hour, RetainOps: 8})
	require.NoError(t, err)
	d.drain(t)
	assert.Equal(t, sharevat.Cursor(3), earliestOf(t, a), "both must allow it: the last 8 stay though 3 of them are old")

	_, err = a.Configure(bg, sharevat.Settings{RetainFor: time.Hour})
	require.NoError(t, err)
	d.drain(t)
	assert.Equal(t, sharevat.Cursor(6), earliestOf(t, a), "the ops of the last hour stay")

	d.clock.Advance(2 * time.Hour)
	d.drain(t)
	assert.Equal(t, sharevat.Cursor(11), earliestOf(t, a), "every op is older than an hour")
	rd, err := a.Reader(bg)
	require.NoError(t, err)
	got, head, err := rd.Read(bg, 10, 0)
	require.NoError(t, err)
	assert.Empty(t, got)
	assert.Equal(t, sharevat.Cursor(10), head, "the head stays")
}

// TestRetentionCatchesUp: on its own timer, a job that stopped on its
// budget with work left runs again after Pause, not after Every, until
// it has caught up.
func TestRetentionCatchesUp(t *testing.T) { onEachStore(t, testRetentionCatchesUp) }

func testRetentionCatchesUp(t *testing.T, on storeKind) {
	passes := make(chan vat.RetentionPass, 64)
	tv := on.serveConfig(t, nil, func(c *vat.Config) {
		c.Retention = vat.Retention{Every: time.Hour, Ops: 4, Pause: time.Millisecond, OnPass: func(p vat.RetentionPass) { passes <- p }}
	})
	a := tv.MustRestore(t, tv.MustCreate(t, "behind"))
	appendN(t, a, "a", 20, 20, `{}`)
	_, err := a.Configure(bg, sharevat.Settings{RetainOps: 2}) // wakes the job; the hour never passes
	require.NoError(t, err)
	timeout := time.After(patience)
	for n := 0; ; n++ {
		select {
		case p := <-passes:
			if !p.More {
				assert.Equal(t, sharevat.Cursor(19), earliestOf(t, a), "caught up: the last 2 of 20 ops stay")
				assert.GreaterOrEqual(t, n, 4, "18 ops at 4 a pass take 5 passes")
				return
			}
		case <-timeout:
			t.Fatal("the job did not catch up")
		}
	}
}
