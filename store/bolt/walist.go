package bolt

import (
	"bytes"
	"slices"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
)

// listMerge is what ListShares lays over share_updated for the shares
// whose acknowledged appends are still only in the write-ahead log: their
// heads, and, when an append moved a share's update time, the key it will
// have once the data file holds the append (moved) in place of the key
// the index still has (stale). The listing then reads as if the whole
// log were applied, without applying it.
type listMerge struct {
	tails map[sharevat.ShareID]*tailView
	stale map[string]bool // share_updated keys to skip
	moved []movedShare    // by their new key
}

// movedShare is a share whose update time the overlay moved.
type movedShare struct {
	key []byte
	s   sharevat.Share
}

// newListMerge reads, in tx, the record of each share with a tail (tails
// was copied before tx opened: see overlay).
func newListMerge(tx *bbolt.Tx, tails map[sharevat.ShareID]*tailView) (*listMerge, error) {
	m := &listMerge{tails: tails, stale: map[string]bool{}}
	for id, tv := range tails {
		s, err := getShare(tx, id)
		if sharevat.ErrorCode(err) == sharevat.ENotFound {
			continue // not listed either
		}
		if err != nil {
			return nil, err
		}
		old := updatedKey(&s)
		tv.overShare(&s)
		if k := updatedKey(&s); !bytes.Equal(k, old) {
			m.stale[string(old)] = true
			m.moved = append(m.moved, movedShare{key: k, s: s})
		}
	}
	slices.SortFunc(m.moved, func(a, b movedShare) int { return bytes.Compare(a.key, b.key) })
	return m, nil
}

// mergedCursor walks share_updated with a listMerge laid over it, in key
// order, from the first key after `after` (all keys if nil).
type mergedCursor struct {
	tx    *bbolt.Tx
	c     *bbolt.Cursor
	m     *listMerge
	k     []byte // the index's current key (nil at its end)
	moved []movedShare
}

func newMergedCursor(tx *bbolt.Tx, m *listMerge, after []byte) *mergedCursor {
	mc := &mergedCursor{tx: tx, c: tx.Bucket(bucketShareUpdated).Cursor(), m: m}
	mc.k, _ = mc.c.First()
	mc.moved = m.moved
	if after != nil {
		if mc.k, _ = mc.c.Seek(after); mc.k != nil && bytes.Equal(mc.k, after) {
			mc.k, _ = mc.c.Next()
		}
		i, _ := slices.BinarySearchFunc(mc.moved, after, func(a movedShare, k []byte) int { return bytes.Compare(a.key, k) })
		for i < len(mc.moved) && bytes.Equal(mc.moved[i].key, after) {
			i++
		}
		mc.moved = mc.moved[i:]
	}
	return mc
}

// next returns the next share and its key; ok is false at the end.
func (mc *mergedCursor) next() (s sharevat.Share, key []byte, ok bool, err error) {
	for mc.k != nil && mc.m.stale[string(mc.k)] {
		mc.k, _ = mc.c.Next()
	}
	if len(mc.moved) > 0 && (mc.k == nil || bytes.Compare(mc.moved[0].key, mc.k) < 0) {
		ms := mc.moved[0]
		mc.moved = mc.moved[1:]
		return ms.s, ms.key, true, nil
	}
	if mc.k == nil {
		return s, nil, false, nil
	}
	key = mc.k
	if len(key) < 8 {
		return s, nil, false, corruptf("share_updated key of %d bytes", len(key))
	}
	if s, err = getShare(mc.tx, sharevat.ShareID(key[8:])); err != nil {
		return s, nil, false, err
	}
	mc.m.tails[s.ID].overShare(&s)
	mc.k, _ = mc.c.Next()
	return s, key, true, nil
}
