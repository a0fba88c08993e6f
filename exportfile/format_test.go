package exportfile

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
)

// sliceLog is a log held in memory, read in pages of two ops.
type sliceLog []sharevat.Entry

func (l sliceLog) Read(_ context.Context, from sharevat.Cursor, _ int) ([]sharevat.Entry, sharevat.Cursor, error) {
	head := l[len(l)-1].Cursor
	var out []sharevat.Entry
	for _, e := range l {
		if e.Cursor > from && len(out) < 2 {
			out = append(out, e)
		}
	}
	return out, head, nil
}

// compacted is a share compacted before cursor 3: its log holds cursors
// 3..5, its base two entities, one with a body that cannot stand on a
// line (pretty-printed).
func compacted() *Export {
	at := time.Date(2026, 11, 24, 10, 0, 0, 1, time.UTC)
	return &Export{
		Share:    sharevat.Share{ID: "s", Meta: sharevat.Meta{Title: "t"}},
		Earliest: 3, Head: 5,
		Base: []sharevat.Entity{
			{Kind: "message", Key: "msg_1", Body: []byte(`{"text":"hi"}`), Cursor: 1, At: at},
			{Kind: "part", Key: "prt_1", Body: []byte("{\n \"text\": \"a\"\n}"), Cursor: 2, At: at},
		},
	}
}

var compactedLog = sliceLog{
	{Cursor: 3, OpID: "o3", Kind: "part", Key: "prt_2", Body: []byte(`{"text":"b"}`)},
	{Cursor: 4, OpID: "o4", Kind: "event", Body: []byte(`{"type":"x"}`)},
	{Cursor: 5, OpID: "o5", Kind: "part", Key: "prt_2", Delete: true},
}

// readOps opens b, checks it, and reads it again to its end.
func readOps(t *testing.T, b []byte) (Source, []sharevat.Op) {
	t.Helper()
	src, err := Open(bytes.NewReader(b), FromAuto)
	require.NoError(t, err)
	require.NoError(t, Check(src))
	src, err = src.Again(bytes.NewReader(b))
	require.NoError(t, err)
	var ops []sharevat.Op
	for {
		op, err := src.Next()
		if errors.Is(err, io.EOF) {
			return src, ops
		}
		require.NoError(t, err)
		ops = append(ops, op)
	}
}

// TestWriteCompactedVersion2: a compacted share is written in version 2
// (earliest, base) and read back as one op per base entity, bodies byte
// for byte, then its ops; the base ops' ids are the same on every read.
func TestWriteCompactedVersion2(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, Write(context.Background(), &buf, compactedLog, compacted()))
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	require.Len(t, lines, 1+2+3)
	h, ok, err := ParseHeader([]byte(lines[0]))
	require.True(t, ok)
	require.NoError(t, err)
	assert.Equal(t, []uint64{2, 3, 5, 3, 2}, []uint64{uint64(h.Version), h.Earliest, h.Head, h.Ops, h.Base})
	assert.Contains(t, lines[2], `"body_base64":`, "a pretty-printed base body goes in base64")

	src, ops := readOps(t, buf.Bytes())
	require.Equal(t, 5, src.Total())
	require.Len(t, ops, 5)
	assert.Equal(t, "{\n \"text\": \"a\"\n}", string(ops[1].Body))
	assert.Equal(t, []string{"message/msg_1", "part/prt_1", "part/prt_2", "event/", "part/prt_2"},
		[]string{ops[0].Kind + "/" + ops[0].Key, ops[1].Kind + "/" + ops[1].Key, ops[2].Kind + "/" + ops[2].Key, ops[3].Kind + "/" + ops[3].Key, ops[4].Kind + "/" + ops[4].Key})
	assert.True(t, strings.HasPrefix(ops[0].OpID, BaseOpPrefix))
	_, again := readOps(t, buf.Bytes())
	assert.Equal(t, ops[0].OpID, again[0].OpID, "a base op's id is the same on every read: a resumed import finds it")
	assert.Equal(t, "o3", ops[2].OpID)
}

// TestWriteUncompactedIsVersion1: a log from cursor 1 is written in
// version 1, without the version 2 fields, as before version 2.
func TestWriteUncompactedIsVersion1(t *testing.T) {
	log := sliceLog{{Cursor: 1, OpID: "a", Kind: "event", Body: []byte(`{}`)}, {Cursor: 2, OpID: "b", Kind: "event", Body: []byte(`1`)}}
	var buf bytes.Buffer
	require.NoError(t, Write(context.Background(), &buf, log, &Export{Earliest: 1, Head: 2}))
	first, _, _ := strings.Cut(buf.String(), "\n")
	assert.Contains(t, first, `"version":1,`)
	assert.NotContains(t, first, `"earliest"`)
	assert.NotContains(t, first, `"base"`)
	_, ops := readOps(t, buf.Bytes())
	assert.Len(t, ops, 2)
}

// TestReadVersion1File: the version 1 file in testdata, as the sharevat
// before version 2 wrote it, reads as its five ops.
func TestReadVersion1File(t *testing.T) {
	b, err := os.ReadFile("testdata/export-v1.jsonl")
	require.NoError(t, err)
	src, ops := readOps(t, b)
	assert.Equal(t, 5, src.Total())
	require.Len(t, ops, 5)
	assert.Equal(t, "{\n  \"text\": \"looking at auth.go\"\n}", string(ops[2].Body))
	assert.True(t, ops[4].Delete)
}

// TestReadRefusesDamagedVersion2: what a reader must check of version 2
// is refused as a *FormatError naming it.
func TestReadRefusesDamagedVersion2(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, Write(context.Background(), &buf, compactedLog, compacted()))
	good := buf.String()
	lines := strings.SplitAfter(good, "\n")
	cases := map[string]struct{ content, want string }{
		"version 3":       {strings.Replace(good, `"version":2`, `"version":3`, 1), "format version 3; this sharevat reads version 2"},
		"no earliest":     {strings.Replace(good, `"earliest":3,`, ``, 1), "no earliest cursor"},
		"base cut short":  {lines[0] + lines[1], "1 of the 2 base entities"},
		"op as base":      {lines[0] + lines[1] + lines[3] + lines[4] + lines[5], "line 3: not a base line"},
		"base as op":      {strings.Replace(good, `"base":2`, `"base":1`, 1), "line 3: a base line among the op lines"},
		"first op cursor": {strings.Replace(good, `"earliest":3`, `"earliest":2`, 1), "not at the earliest cursor 2"},
		"deleted base":    {strings.Replace(good, `"base":true,"kind":"message","key":"msg_1"`, `"base":true,"delete":true,"kind":"message","key":"msg_1"`, 1), "never a delete"},
		"ops cut short":   {strings.Join(lines[:5], ""), "2 of the 3 ops"},
		"an op too many":  {good + strings.Replace(lines[3], `"cursor":3`, `"cursor":6`, 1), "more than the 3"},
	}
	for name, c := range cases {
		src, err := Open(strings.NewReader(c.content), FromAuto)
		if err == nil {
			err = Check(src)
		}
		var fe *FormatError
		require.ErrorAs(t, err, &fe, name)
		assert.Contains(t, err.Error(), c.want, name)
	}
}
