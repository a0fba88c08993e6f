package storetest

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/sharevat/sharevat"
)

// t0 is the base time of every fixture.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// at returns t0 plus n seconds.
func at(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }

// newShare returns a share at epoch 1 and its owner grant.
func newShare(id string) (sharevat.Share, sharevat.Grant) {
	s := sharevat.Share{
		ID: sharevat.ShareID(id), Epoch: 1, Earliest: 1, OwnerRoot: sharevat.GrantID(id + "-owner"),
		Meta: sharevat.Meta{
			Title: "title " + id, ProjectID: "proj", Directory: "/src/" + id,
			Version: "1.0", Status: sharevat.StatusIdle, CreatedAt: t0, UpdatedAt: t0,
		},
	}
	return s, ownerGrant(s.ID, s.OwnerRoot, 1)
}

// ownerGrant returns an owner grant of share minted at epoch.
func ownerGrant(share sharevat.ShareID, id sharevat.GrantID, epoch sharevat.Epoch) sharevat.Grant {
	return sharevat.Grant{
		ID: id, ShareID: share, Scope: sharevat.ScopeOwner, Epoch: epoch,
		Verifier: []byte("verifier-" + id), Label: "owner", CreatedBy: "peer",
		CreatedAt: at(int(epoch)),
	}
}

// mustShare creates share id and returns it as stored.
func mustShare(t *testing.T, st sharevat.Store, id string) sharevat.Share {
	t.Helper()
	s, owner := newShare(id)
	if err := st.CreateShare(t.Context(), s, owner); err != nil {
		t.Fatalf("CreateShare(%s): %v", id, err)
	}
	return s
}

// ev returns an event op.
func ev(id string) sharevat.Op {
	return sharevat.Op{OpID: id, Kind: sharevat.KindEvent, Body: fmt.Appendf(nil, `{"id":%q}`, id)}
}

// put returns a state op upserting kind/key with body.
func put(id, kind, key, body string) sharevat.Op {
	return sharevat.Op{OpID: id, Kind: kind, Key: key, Body: []byte(body)}
}

// del returns a state op deleting kind/key.
func del(id, kind, key string) sharevat.Op {
	return sharevat.Op{OpID: id, Kind: kind, Key: key, Delete: true}
}

// withDeps returns op with its dependencies set.
func withDeps(op sharevat.Op, deps ...string) sharevat.Op {
	op.DependsOn = deps
	return op
}

// expect returns op with its expected cursor set.
func expect(op sharevat.Op, c sharevat.Cursor) sharevat.Op {
	op.ExpectedCursor = &c
	return op
}

// batch returns a batch at epoch with ops numbered by seq.
func batch(epoch sharevat.Epoch, ops ...sharevat.Op) *sharevat.Batch {
	b := &sharevat.Batch{BatchID: fmt.Sprintf("batch-%d", len(ops)), Epoch: epoch, Ops: ops}
	if len(ops) > 0 {
		b.BatchID = "batch-" + ops[0].OpID
	}
	for i := range b.Ops {
		b.Ops[i].Seq = uint32(i)
	}
	return b
}

// tryAppend appends b to share with lim, at(100).
func tryAppend(t *testing.T, st sharevat.Store, share string, b *sharevat.Batch, lim sharevat.Limits) (sharevat.Ack, error) {
	t.Helper()
	return st.Append(t.Context(), sharevat.AppendRequest{
		Share: sharevat.ShareID(share), Batch: b, Limits: lim, Now: at(100),
	})
}

// mustAppend appends b to share with the default limits.
func mustAppend(t *testing.T, st sharevat.Store, share string, b *sharevat.Batch) sharevat.Ack {
	t.Helper()
	ack, err := tryAppend(t, st, share, b, sharevat.DefaultLimits())
	if err != nil {
		t.Fatalf("Append(%s): %v", share, err)
	}
	return ack
}

// wantCode fails t unless err has the given code.
func wantCode(t *testing.T, err error, want sharevat.Code) {
	t.Helper()
	if got := sharevat.ErrorCode(err); got != want {
		t.Fatalf("error code = %q (err %v), want %q", got, err, want)
	}
}

// ok fails t if err is not nil.
func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

// sameValue fails t unless got and want are deeply equal once times are
// normalized to UTC and empty byte slices to nil.
func sameValue[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	g, w := normalize(got), normalize(want)
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("%s:\n got %+v\nwant %+v", what, g, w)
	}
}

// normalize returns a copy of v with times in UTC without monotonic
// reading and empty byte slices as nil, recursing into structs and slices.
func normalize[T any](v T) T {
	rv := reflect.ValueOf(&v).Elem()
	normalizeValue(rv)
	return v
}

var timeType = reflect.TypeFor[time.Time]()

func normalizeValue(v reflect.Value) {
	switch {
	case !v.CanSet():
		return
	case v.Type() == timeType:
		v.Set(reflect.ValueOf(normTime(v.Interface().(time.Time))))
	case v.Kind() == reflect.Struct:
		for i := range v.NumField() {
			normalizeValue(v.Field(i))
		}
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8:
		if v.Len() == 0 {
			v.SetBytes(nil)
		}
	case v.Kind() == reflect.Slice:
		v.Set(reflect.AppendSlice(reflect.MakeSlice(v.Type(), 0, v.Len()), v))
		for i := range v.Len() {
			normalizeValue(v.Index(i))
		}
	}
}

func normTime(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return time.Unix(0, t.UnixNano()).UTC()
}

// sameBytes fails t unless got equals want.
func sameBytes(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Fatalf("%s = %q, want %q", what, got, want)
	}
}
