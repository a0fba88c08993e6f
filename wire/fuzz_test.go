package wire_test

import (
	"encoding/binary"
	"reflect"
	"testing"

	"capnproto.org/go/capnp/v3"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// FuzzReadBatch feeds arbitrary bytes, as one Cap'n Proto message whose
// root is a Batch, to ReadBatch. It must never panic; it must refuse
// with invalid or tooLarge, or return at most MaxBatchOps ops that
// survive a round trip: encoded again with SetBatch and read back, the
// batch is unchanged. The committed corpus (testdata/fuzz/FuzzReadBatch)
// holds batches encoded by SetBatch, malformed messages and a flood of
// empty ops; seedBatches adds the live encodings.
func FuzzReadBatch(f *testing.F) {
	for _, b := range seedBatches() {
		data, err := encodeBatch(b)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		msg, err := capnp.Unmarshal(data)
		if err != nil {
			return
		}
		src, err := schema.ReadRootBatch(msg)
		if err != nil {
			return
		}
		checkReadBatch(t, src)
	})
}

// checkReadBatch is FuzzReadBatch's property for one decoded root.
func checkReadBatch(t *testing.T, src schema.Batch) {
	b, err := wire.ReadBatch(src)
	if code := sharevat.ErrorCode(err); err != nil {
		if code != sharevat.EInvalid && code != sharevat.ETooLarge {
			t.Fatalf("ReadBatch error %v is neither invalid nor tooLarge", err)
		}
		return
	}
	if len(b.Ops) > wire.MaxBatchOps {
		t.Fatalf("ReadBatch returned %d ops, more than %d", len(b.Ops), wire.MaxBatchOps)
	}
	again, err := roundTrip(b)
	if err != nil {
		t.Fatalf("re-encoding an accepted batch: %v", err)
	}
	if !reflect.DeepEqual(b, again) {
		t.Fatalf("batch changed in a round trip:\n got %+v\nwant %+v", again, b)
	}
}

// seedBatches are real batches: every op field, empty and unicode values.
func seedBatches() []*sharevat.Batch {
	zero, five := sharevat.Cursor(0), sharevat.Cursor(5)
	return []*sharevat.Batch{
		{BatchID: "b", Epoch: 3, Ops: []sharevat.Op{
			{OpID: "a", Kind: "message", Key: "k", Body: []byte(`{"x":"é"}`), DependsOn: []string{"p", "q"}, ExpectedCursor: &zero},
			{OpID: "b", Seq: 1, Kind: "part", Key: "k2", Delete: true, ExpectedCursor: &five},
			{OpID: "c", Seq: 2, Kind: "event", Body: []byte(`{}`)},
		}},
		{},
		{BatchID: "only-id", Epoch: 1 << 62},
		{BatchID: "x", Ops: []sharevat.Op{{OpID: "日本", Seq: 1<<32 - 1, Kind: "session", Key: "\x00", Body: []byte{0, 1, 2}}}},
	}
}

// TestReadBatchRefusesEmptyOpFlood: a 48-byte message declaring millions
// of empty ops is refused as tooLarge, not decoded into millions of ops
// (which once cost ~120 bytes of memory per op it declared).
func TestReadBatchRefusesEmptyOpFlood(t *testing.T) {
	for _, n := range []int{wire.MaxBatchOps + 1, 200_000, 1<<23 - 100} {
		data := emptyOpsMessage(n)
		msg, err := capnp.Unmarshal(data)
		if err != nil {
			t.Fatal(err)
		}
		src, err := schema.ReadRootBatch(msg)
		if err != nil {
			t.Fatal(err)
		}
		b, err := wire.ReadBatch(src)
		if sharevat.ErrorCode(err) != sharevat.ETooLarge {
			t.Fatalf("%d empty ops in %d bytes: got %d ops, err %v; want tooLarge", n, len(data), len(b.Ops), err)
		}
	}
}

// emptyOpsMessage is a one-segment message whose root Batch has n ops,
// each an empty struct (no data, no pointers): 48 bytes for any n.
func emptyOpsMessage(n int) []byte {
	words := []uint64{
		1<<32 | 2<<48,  // root: struct pointer, 1 data word, 2 pointers
		7,              // epoch
		0,              // batchId: null
		1 | 7<<32,      // ops: list pointer, composite, 0 words of content
		uint64(n) << 2, // its tag: n elements of 0 data, 0 pointer words
	}
	data := binary.LittleEndian.AppendUint32(nil, 0) // one segment
	data = binary.LittleEndian.AppendUint32(data, uint32(len(words)))
	for _, w := range words {
		data = binary.LittleEndian.AppendUint64(data, w)
	}
	return data
}

// roundTrip encodes b with SetBatch into a new message, marshals it, and
// reads it back with ReadBatch.
func roundTrip(b *sharevat.Batch) (*sharevat.Batch, error) {
	data, err := encodeBatch(b)
	if err != nil {
		return nil, err
	}
	msg, err := capnp.Unmarshal(data)
	if err != nil {
		return nil, err
	}
	src, err := schema.ReadRootBatch(msg)
	if err != nil {
		return nil, err
	}
	return wire.ReadBatch(src)
}

// encodeBatch returns b as one marshalled message, as a client sends it.
func encodeBatch(b *sharevat.Batch) ([]byte, error) {
	msg, seg, err := capnp.NewMessage(capnp.SingleSegment(nil))
	if err != nil {
		return nil, err
	}
	dst, err := schema.NewRootBatch(seg)
	if err != nil {
		return nil, err
	}
	if err := wire.SetBatch(dst, b); err != nil {
		return nil, err
	}
	return msg.Marshal()
}
