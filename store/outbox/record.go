package outbox

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sharevat/sharevat"
)

// State is where an op is in the outbox.
type State uint8

// The op states. StateUnknown is for op ids the outbox does not hold (never
// enqueued, or a done record pruned); StateDamaged for one whose record
// or ids entry is damaged (DamagedRecordError). Only the first three are
// stored.
const (
	StatePending State = iota
	StateDone
	StateFailed
	StateUnknown
	StateDamaged
)

var stateNames = [...]string{"pending", "done", "failed", "unknown", "damaged"}

// String returns "pending", "done", "failed", "unknown" or "damaged".
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "unknown"
}

// bucketOf returns the bucket holding records in state s.
func bucketOf(s State) []byte {
	return [...][]byte{bucketPending, bucketDone, bucketFailed}[s]
}

// record is one op as stored, with its batch once assigned and its result
// once acked. Its JSON field names are the on-disk format: never rename.
type record struct {
	seq uint64 // the key; not in the value

	OpID           string    `json:"id"`
	DependsOn      []string  `json:"deps,omitempty"`
	ExpectedCursor *uint64   `json:"expect,omitempty"`
	Kind           string    `json:"kind"`
	Key            string    `json:"key,omitempty"`
	Body           []byte    `json:"body,omitempty"`
	Delete         bool      `json:"del,omitempty"`
	EnqueuedAt     time.Time `json:"at"`

	BatchID  string `json:"batch,omitempty"`
	BatchSeq uint32 `json:"bseq,omitempty"`

	Status  sharevat.OpStatus `json:"status,omitempty"`
	Cursor  sharevat.Cursor   `json:"cursor,omitempty"`
	Reason  sharevat.Reason   `json:"reason,omitempty"`
	Message string            `json:"msg,omitempty"`
	AckedAt time.Time         `json:"acked,omitzero"`
}

func newRecord(op *sharevat.Op, seq uint64, now time.Time) *record {
	r := &record{
		seq: seq, OpID: op.OpID, DependsOn: op.DependsOn, Kind: op.Kind, Key: op.Key,
		Body: op.Body, Delete: op.Delete, EnqueuedAt: now.UTC(),
	}
	if op.ExpectedCursor != nil {
		c := uint64(*op.ExpectedCursor)
		r.ExpectedCursor = &c
	}
	return r
}

// op returns the record's op, with Seq set to its seq in its batch.
func (r *record) op() sharevat.Op {
	op := sharevat.Op{
		OpID: r.OpID, Seq: r.BatchSeq, DependsOn: r.DependsOn, Kind: r.Kind,
		Key: r.Key, Body: r.Body, Delete: r.Delete,
	}
	if r.ExpectedCursor != nil {
		c := sharevat.Cursor(*r.ExpectedCursor)
		op.ExpectedCursor = &c
	}
	return op
}

// size is what the op counts against a batch's byte budget: the same sum
// the server checks (sharevat.Op.Size).
func (r *record) size() int {
	op := r.op()
	return op.Size()
}

// encode returns the record's value: its JSON, sealed with the checksum
// of its key and the JSON (checksum.go).
func (r *record) encode() ([]byte, error) {
	js, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	return seal(seqKey(r.seq), js), nil
}

// decodeRecord decodes the value v at key k of state s's bucket; a value
// that fails its checksum or does not decode is a *DamagedRecordError.
func decodeRecord(s State, k, v []byte) (*record, error) {
	if len(k) != 8 {
		return nil, damagedRecord(s, k, v, fmt.Sprintf("its key %x is not an enqueue seq", k))
	}
	js, ok := unseal(k, v)
	if !ok {
		return nil, damagedRecord(s, k, v, "its checksum does not match")
	}
	r := &record{}
	if err := json.Unmarshal(js, r); err != nil {
		return nil, damagedRecord(s, k, v, "it does not decode")
	}
	r.seq = seqOf(k)
	return r, nil
}

func seqKey(seq uint64) []byte { return binary.BigEndian.AppendUint64(nil, seq) }

func seqOf(k []byte) uint64 { return binary.BigEndian.Uint64(k) }

// idEntry is the value of the ids bucket for opID: the record's seq and
// state, sealed with the checksum of opID and both.
func idEntry(opID string, seq uint64, s State) []byte {
	return seal([]byte(opID), append(seqKey(seq), byte(s)))
}

// parseIDEntry reads the ids entry v of op id k.
func parseIDEntry(k, v []byte) (uint64, State, error) {
	e, ok := unseal(k, v)
	if !ok || len(e) != 9 || State(e[8]) > StateFailed {
		return 0, 0, fmt.Errorf("bad id entry %x", v)
	}
	return seqOf(e[:8]), State(e[8]), nil
}
