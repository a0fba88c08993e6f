package bolt_test

import (
	"encoding/binary"
	"reflect"
	"testing"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt"
)

func sampleEntries() []sharevat.Entry {
	return []sharevat.Entry{
		{Cursor: 1, OpID: "a", Kind: sharevat.KindEvent, Body: []byte(`{}`)},
		{
			Cursor: 1 << 40, OpID: "op-ü", BatchID: "batch", Seq: 7, Kind: sharevat.KindMessage,
			Key: "k\x00ey", Body: []byte(`{"text":"hi"}`), At: time.Unix(1700000000, 123).UTC(),
			Digest: [32]byte{1, 2, 3, 31: 9},
		},
		{Cursor: 3, OpID: "d", Kind: sharevat.KindPart, Key: "p", Delete: true, Body: []byte{}},
	}
}

func TestEntryRoundTrip(t *testing.T) {
	for _, want := range sampleEntries() {
		v := bolt.EncodeEntry(&want)
		got, err := bolt.DecodeEntry(binary.BigEndian.AppendUint64(nil, uint64(want.Cursor)), v)
		if err != nil {
			t.Fatalf("decode %+v: %v", want, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
		}
	}
}

// FuzzDecode: no input makes a decoder panic, and whatever decodes
// re-encodes to something that decodes to the same entry.
func FuzzDecode(f *testing.F) {
	for _, e := range sampleEntries() {
		f.Add(binary.BigEndian.AppendUint64(nil, uint64(e.Cursor)), bolt.EncodeEntry(&e))
	}
	f.Add([]byte("message\x00k"), []byte{1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, '{', '}'})
	f.Fuzz(func(t *testing.T, k, v []byte) {
		_, _ = bolt.DecodeEntity(k, v)
		e, err := bolt.DecodeEntry(k, v)
		if err != nil {
			return
		}
		again, err := bolt.DecodeEntry(k, bolt.EncodeEntry(&e))
		if err != nil || !reflect.DeepEqual(again, e) {
			t.Errorf("re-decoded %+v (%v), want %+v", again, err, e)
		}
	})
}
