package bolt

import (
	"bytes"
	"encoding/binary"
	"slices"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
)

// The sealed index (format 4) keeps the op-id index entries of compacted
// ops: all that must stay of an op once its log record is gone, so that
// a late retry is still answered duplicate (or idReused) at its cursor
// and a dependency on it is met. The live index (bucket ops) holds one
// bbolt entry per op; here the entries are packed, sorted by op id, into
// blocks of about one page with each op id prefix-compressed against the
// one before it, each cursor a delta and, of the digest, only its first
// 8 bytes (sharevat.ShortDigestLen), so an entry costs its op id's new
// bytes, a byte or two of cursor and 8 bytes, instead of bbolt's 16-byte
// element header, the whole op id and 40 bytes, on pages that random
// inserts leave half full. 8 bytes of a SHA-256 digest still tell a
// retry (duplicate) from an op id reused with other content (idReused)
// but for one chance in 2^64.
//
// Under logs/<share id>/sealed, a block's key is its first op id and its
// value is
//
//	version (1) ‖ uvarint n ‖ n × entry
//	entry: uvarint shared ‖ uvarint len(suffix) ‖ suffix
//	       ‖ varint cursor delta ‖ first 8 bytes of the digest
//
// where an entry's op id is the first shared bytes of the op id before
// it (the block's key, for the first entry) followed by suffix, so the
// first entry is (len(key), 0, ""), and its cursor is the cursor before
// it (0, for the first) plus the delta. Op ids increase strictly within
// a block and from one block to the next; no op id is both here and in
// ops; every cursor is below the share's earliest cursor.

// bucketSealed is the per-share bucket of the sealed index, made by the
// first compaction (format 4).
var bucketSealed = []byte("sealed")

const (
	sealedVersion = 1
	// sealedBlockBytes bounds a block's key and value together, so that a
	// block fits one 4 KiB bbolt page with its page and element headers.
	// A block over it is split; one entry longer than it (op ids reach
	// 4 KiB) is a block of its own.
	sealedBlockBytes = 3900
)

// tagLen is how much of an op's digest the sealed index keeps.
const tagLen = sharevat.ShortDigestLen

// sealedOp is one entry of the sealed index.
type sealedOp struct {
	id     []byte
	cursor sharevat.Cursor
	tag    [tagLen]byte // the digest's first bytes
}

// newSealedOp is the entry of op id at cursor c with digest d.
func newSealedOp(id []byte, c sharevat.Cursor, d *[32]byte) sealedOp {
	return sealedOp{id: id, cursor: c, tag: [tagLen]byte(d[:tagLen])}
}

// indexed is op as a short op-id index entry.
func (op *sealedOp) indexed() sharevat.IndexedOp {
	ix := sharevat.IndexedOp{OpID: string(op.id), Cursor: op.cursor, Short: true}
	copy(ix.Digest[:], op.tag[:])
	return ix
}

// sealedBlock is a block being decoded, one entry at a time.
type sealedBlock struct {
	rest     []byte // undecoded entries
	n        uint64 // entries left
	sealedOp        // the current entry; its id is a reused buffer
}

// openBlock starts decoding the block under key; buf is reused for ids.
func openBlock(key, v, buf []byte) (sealedBlock, error) {
	if len(v) < 2 || v[0] != sealedVersion {
		return sealedBlock{}, corruptf("sealed index: a block of unknown version or empty")
	}
	n, w := binary.Uvarint(v[1:])
	if w <= 0 || n == 0 || n > uint64(len(v)) {
		return sealedBlock{}, corruptf("sealed index: a block with a bad entry count")
	}
	return sealedBlock{rest: v[1+w:], n: n, sealedOp: sealedOp{id: append(buf[:0], key...)}}, nil
}

// next decodes the next entry into b.id, b.cursor and b.tag; false at
// the end of the block.
func (b *sealedBlock) next(first bool) (bool, error) {
	if b.n == 0 {
		return false, b.end()
	}
	shared, suffix, err := b.entry(len(b.id), first)
	if err != nil {
		return false, err
	}
	if !first && !idIncreases(b.id, shared, suffix) {
		return false, corruptf("sealed index: op ids out of order")
	}
	b.id = append(b.id[:shared], suffix...)
	return true, nil
}

// entry decodes the next entry's cursor and tag into b and returns how
// many bytes its op id shares with the one before (of plen bytes) and
// the rest of it (a view into the block).
func (b *sealedBlock) entry(plen int, first bool) (int, []byte, error) {
	b.n--
	shared, w1 := binary.Uvarint(b.rest)
	if w1 <= 0 || shared > uint64(plen) {
		return 0, nil, corruptf("sealed index: an entry shares more than the op id before it")
	}
	slen, w2 := binary.Uvarint(b.rest[w1:])
	if w2 <= 0 || slen > uint64(len(b.rest)-w1-w2) {
		return 0, nil, corruptf("sealed index: an entry runs past its block")
	}
	if first && (shared != uint64(plen) || slen != 0) {
		return 0, nil, corruptf("sealed index: a block's first op id is not its key")
	}
	suffix := b.rest[w1+w2 : w1+w2+int(slen)]
	rest := b.rest[w1+w2+int(slen):]
	delta, w3 := binary.Varint(rest)
	if w3 <= 0 || len(rest)-w3 < tagLen {
		return 0, nil, corruptf("sealed index: an entry runs past its block")
	}
	c := int64(b.cursor) + delta
	if c <= 0 {
		return 0, nil, corruptf("sealed index: an entry at cursor %d", c)
	}
	b.cursor = sharevat.Cursor(c)
	copy(b.tag[:], rest[w3:w3+tagLen])
	b.rest = rest[w3+tagLen:]
	return int(shared), suffix, nil
}

// end checks that nothing follows the block's last entry.
func (b *sealedBlock) end() error {
	if len(b.rest) != 0 {
		return corruptf("sealed index: bytes after a block's last entry")
	}
	return nil
}

// idIncreases reports whether prev[:shared]‖suffix sorts after prev.
func idIncreases(prev []byte, shared int, suffix []byte) bool {
	if shared == len(prev) {
		return len(suffix) > 0
	}
	return len(suffix) > 0 && suffix[0] > prev[shared]
}

// sealedLookup finds id in the sealed index b (nil: none yet): in the
// block with the greatest key at or below it.
func sealedLookup(b *bbolt.Bucket, id []byte) (sharevat.IndexedOp, bool, error) {
	if b == nil {
		return sharevat.IndexedOp{}, false, nil
	}
	c := b.Cursor()
	k, v := c.Seek(id)
	switch {
	case k == nil:
		k, v = c.Last()
	case !bytes.Equal(k, id):
		k, v = c.Prev()
	}
	if k == nil {
		return sharevat.IndexedOp{}, false, nil
	}
	at, tag, ok, err := findInBlock(k, v, id)
	if !ok || err != nil {
		return sharevat.IndexedOp{}, false, err
	}
	op := sealedOp{id: id, cursor: at, tag: tag}
	return op.indexed(), true, nil
}

// findInBlock finds id in the block under key (key ≤ id) without
// rebuilding the op ids it passes: it keeps m, how many bytes the last
// op id passed (below id) shares with id, and compares each entry's
// suffix with id only where that decides. An entry sharing more than m
// bytes with the one before is below id too; one sharing fewer is above
// it (op ids increase), which ends the search.
func findInBlock(key, v, id []byte) (sharevat.Cursor, [tagLen]byte, bool, error) {
	var tag [tagLen]byte
	blk, err := openBlock(nil, v, nil)
	if err != nil {
		return 0, tag, false, err
	}
	m, plen := commonPrefix(key, id), len(key)
	for first := true; blk.n > 0; first = false {
		shared, suffix, err := blk.entry(plen, first)
		if err != nil {
			return 0, tag, false, err
		}
		if first { // the key itself, at or below id
			if m == len(key) && m == len(id) {
				return blk.cursor, blk.tag, true, nil
			}
			continue
		}
		plen = shared + len(suffix)
		switch {
		case shared > m: // below id, sharing m bytes with it
		case shared < m:
			return 0, tag, false, nil
		default:
			c := commonPrefix(suffix, id[m:])
			switch {
			case c == len(suffix) && m+c == len(id):
				return blk.cursor, blk.tag, true, nil
			case m+c == len(id), c < len(suffix) && suffix[c] > id[m+c]:
				return 0, tag, false, nil
			}
			m += c
		}
	}
	return 0, tag, false, blk.end()
}

// decodeBlock returns every entry of the block under key, copied.
func decodeBlock(key, v []byte) ([]sealedOp, error) {
	blk, err := openBlock(key, v, nil)
	if err != nil {
		return nil, err
	}
	out := make([]sealedOp, 0, blk.n)
	for first := true; ; first = false {
		ok, err := blk.next(first)
		if err != nil {
			return nil, err
		}
		if !ok {
			return out, nil
		}
		out = append(out, sealedOp{id: slices.Clone(blk.id), cursor: blk.cursor, tag: blk.tag})
	}
}

// blockEncoder encodes entries sorted by op id into blocks.
type blockEncoder struct {
	entries []byte // the current block's encoded entries
	n       int
	key     []byte // the current block's first op id
	prev    sealedOp
}

// add appends op to the current block.
func (e *blockEncoder) add(op *sealedOp) {
	if e.n == 0 {
		e.key, e.prev = op.id, sealedOp{id: op.id}
	}
	shared := commonPrefix(e.prev.id, op.id)
	e.entries = binary.AppendUvarint(e.entries, uint64(shared))
	e.entries = binary.AppendUvarint(e.entries, uint64(len(op.id)-shared))
	e.entries = append(e.entries, op.id[shared:]...)
	e.entries = binary.AppendVarint(e.entries, int64(op.cursor)-int64(e.prev.cursor))
	e.entries = append(e.entries, op.tag[:]...)
	e.n++
	e.prev = *op
}

// size is what the current block takes, key included, with op added.
func (e *blockEncoder) size(op *sealedOp) int {
	if e.n == 0 {
		return len(op.id) + 2*binary.MaxVarintLen64 + tagLen
	}
	shared := commonPrefix(e.prev.id, op.id)
	return len(e.key) + 1 + binary.MaxVarintLen32 + len(e.entries) + 3*binary.MaxVarintLen64 + len(op.id) - shared + tagLen
}

// take returns the current block's key and value and starts a new one.
func (e *blockEncoder) take() (key, value []byte) {
	value = binary.AppendUvarint([]byte{sealedVersion}, uint64(e.n))
	value = append(value, e.entries...)
	key = e.key
	*e = blockEncoder{}
	return key, value
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// encodeBlocks encodes ops, sorted by op id, as blocks of at most limit
// bytes each (key and value; one entry over it is a block alone) and
// calls put with each.
func encodeBlocks(ops []sealedOp, limit int, put func(key, value []byte) error) error {
	var e blockEncoder
	for i := range ops {
		if e.n > 0 && e.size(&ops[i]) > limit {
			if err := put(e.take()); err != nil {
				return err
			}
		}
		e.add(&ops[i])
	}
	if e.n == 0 {
		return nil
	}
	return put(e.take())
}
