package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/sharevat/sharevat"
)

// FuzzParseOps feeds arbitrary input to parseOps, the JSON Lines parser
// of `sharevat append`. It must never panic; it must either refuse the
// input with a usage error (exit 2) or return ops that survive a round
// trip: written back as JSON Lines and parsed again, every op is the same
// (a body compared as compacted JSON). The seed corpus is
// testdata/fuzz/FuzzParseOps.
func FuzzParseOps(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		ops, err := parseOps(bytes.NewReader(data))
		if err != nil {
			var ue *usageError
			if !errors.As(err, &ue) {
				t.Fatalf("parseOps error %v is not a usage error", err)
			}
			return
		}
		if len(ops) == 0 {
			t.Fatal("parseOps accepted input with no ops")
		}
		again, err := parseOps(bytes.NewReader(writeOps(t, ops)))
		if err != nil {
			t.Fatalf("parsing the ops written back: %v", err)
		}
		if !reflect.DeepEqual(normalOps(t, ops), normalOps(t, again)) {
			t.Fatalf("ops changed in a round trip:\n got %+v\nwant %+v", again, ops)
		}
	})
}

// writeOps writes ops as JSON Lines, one jsonOp each.
func writeOps(t *testing.T, ops []sharevat.Op) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, op := range ops {
		j := jsonOp{OpID: op.OpID, Kind: op.Kind, Key: op.Key, Body: op.Body, DependsOn: op.DependsOn, Delete: op.Delete}
		if op.ExpectedCursor != nil {
			c := uint64(*op.ExpectedCursor)
			j.ExpectedCursor = &c
		}
		if err := enc.Encode(j); err != nil {
			t.Fatalf("writing op %+v back: %v", op, err)
		}
	}
	return buf.Bytes()
}

// normalOps returns copies of ops with each body compacted.
func normalOps(t *testing.T, ops []sharevat.Op) []sharevat.Op {
	out := make([]sharevat.Op, len(ops))
	for i, op := range ops {
		if op.Body != nil {
			var buf bytes.Buffer
			if err := json.Compact(&buf, op.Body); err != nil {
				t.Fatalf("op %d: body %q is not JSON: %v", i, op.Body, err)
			}
			op.Body = buf.Bytes()
		}
		out[i] = op
	}
	return out
}
