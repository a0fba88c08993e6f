package vaultcopy_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/sharevat/sharevat"
)

// vaultView is all a store gives of a vault through its interface.
type vaultView struct {
	Shares map[sharevat.ShareID]shareView
	Admins []sharevat.Grant
	Audit  []sharevat.AuditRecord
}

// shareView is one share as stored: its record, grants, log from the
// earliest cursor, snapshot, the error code of a read from cursor 0,
// and what its compactions kept.
// ReadErr is the code and message of a read from cursor 0 ("compacted:
// ops before cursor 8 were compacted…" for a compacted share).
type shareView struct {
	Share     sharevat.Share
	Grants    []sharevat.Grant
	Log       []sharevat.Entry
	Snapshot  []sharevat.Entity
	Head      sharevat.Cursor
	ReadErr   string
	Compacted sharevat.Compacted
}

// view reads the whole vault of st, times in UTC.
func view(t *testing.T, st sharevat.Store) vaultView {
	t.Helper()
	ctx := t.Context()
	shares, err := st.Shares(ctx)
	must(t, err)
	v := vaultView{Shares: map[sharevat.ShareID]shareView{}}
	for _, s := range shares {
		v.Shares[s.ID] = viewShare(t, st, s)
	}
	v.Admins, err = st.Grants(ctx, "")
	must(t, err)
	v.Audit, err = st.AuditLog(ctx, "", 0, 1000)
	must(t, err)
	return utc(v)
}

// viewShare reads s of st.
func viewShare(t *testing.T, st sharevat.Store, s sharevat.Share) shareView {
	t.Helper()
	ctx := t.Context()
	v := shareView{Share: s}
	var err error
	v.Grants, err = st.Grants(ctx, s.ID)
	must(t, err)
	if s.Deleted {
		return v
	}
	v.Log, _, err = st.Read(ctx, s.ID, s.Earliest-1, 1000)
	must(t, err)
	_, _, err = st.Read(ctx, s.ID, 0, 1000)
	if err != nil {
		v.ReadErr = string(sharevat.ErrorCode(err)) + ": " + err.Error()
	}
	v.Snapshot, v.Head, err = st.Snapshot(ctx, s.ID)
	must(t, err)
	v.Compacted, err = st.(sharevat.CompactedReader).ReadCompacted(ctx, s.ID)
	must(t, err)
	return v
}

// utc returns v with every time.Time in it in UTC (PostgreSQL gives
// them in its session's zone), through reflection.
func utc[T any](v T) T {
	normalize(reflect.ValueOf(&v).Elem())
	return v
}

func normalize(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		if t, ok := v.Addr().Interface().(*time.Time); ok {
			*t = t.UTC()
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				normalize(v.Field(i))
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			normalize(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			normalize(e)
			v.SetMapIndex(k, e)
		}
	}
}
