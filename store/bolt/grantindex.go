package bolt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
)

// The grant_children index: every grant with a parent, keyed under it.
//
//	grant_children  uvarint len(parent id) ‖ parent id ‖ child id →
//	                  offset 0  1 byte   version (1)
//	                  offset 1  1 byte   flags: bit 0 = revoked
//	                  offset 2  8 bytes  the child's expiresAt (int64
//	                                     Unix ns, 0: never)
//
// The value repeats what the mint quota needs of a child, so counting a
// grant's live children reads only its own keys, never a grant record.
// It is written when a grant is created and when it is revoked. A file
// written before the index existed has no such bucket: the first write
// that needs it (or a read that finds it missing) builds it from the
// grants bucket, in one transaction.
var bucketGrantChildren = []byte("grant_children")

// childValueLen is the length of a grant_children value.
const childValueLen = 10

// errNoGrantIndex tells a read that the index is not built yet.
var errNoGrantIndex = errors.New("grant index missing")

// childPrefix is the key prefix of every child of parent.
func childPrefix(parent sharevat.GrantID) []byte { return prefixKey(string(parent), nil) }

// encodeChild is the index value for g.
func encodeChild(g *sharevat.Grant) []byte {
	var flags byte
	if g.Revoked {
		flags = 1
	}
	return binary.BigEndian.AppendUint64([]byte{formatVersion, flags}, unixNano(g.ExpiresAt))
}

// childLive reports whether an index value is of a child neither revoked
// nor expired at now.
func childLive(v []byte, now time.Time) (bool, error) {
	if len(v) != childValueLen || v[0] != formatVersion || v[1]&^1 != 0 {
		return false, corruptf("grant_children value of %d bytes", len(v))
	}
	exp := fromUnixNano(binary.BigEndian.Uint64(v[2:]))
	return v[1] == 0 && (exp.IsZero() || now.Before(exp)), nil
}

// grantIndex returns the index bucket, building it first if the file
// predates it.
func grantIndex(tx *bbolt.Tx) (*bbolt.Bucket, error) {
	if b := tx.Bucket(bucketGrantChildren); b != nil {
		return b, nil
	}
	b, err := tx.CreateBucket(bucketGrantChildren)
	if err != nil {
		return nil, fmt.Errorf("grant index: %w", err)
	}
	return b, buildGrantIndex(tx, b)
}

// buildGrantIndex indexes every grant of the grants bucket into b.
func buildGrantIndex(tx *bbolt.Tx, b *bbolt.Bucket) error {
	return tx.Bucket(bucketGrants).ForEach(func(k, v []byte) error {
		g, err := decodeGrant(v)
		if err != nil {
			return fmt.Errorf("grant %q: %w", k, err)
		}
		return putChild(b, &g)
	})
}

// indexChild records g under its parent (nothing for a root grant).
func indexChild(tx *bbolt.Tx, g *sharevat.Grant) error {
	if g.Parent == "" {
		return nil
	}
	b, err := grantIndex(tx)
	if err != nil {
		return err
	}
	return putChild(b, g)
}

func putChild(b *bbolt.Bucket, g *sharevat.Grant) error {
	if g.Parent == "" {
		return nil
	}
	return b.Put(prefixKey(string(g.Parent), []byte(g.ID)), encodeChild(g))
}

// readIndex returns the index bucket in a read transaction, or
// errNoGrantIndex if the file predates it.
func readIndex(tx *bbolt.Tx) (*bbolt.Bucket, error) {
	if b := tx.Bucket(bucketGrantChildren); b != nil {
		return b, nil
	}
	return nil, errNoGrantIndex
}

// forEachChild calls fn with the id and index value of each child of
// parent, in id order.
func forEachChild(b *bbolt.Bucket, parent sharevat.GrantID, fn func(id, v []byte) error) error {
	prefix := childPrefix(parent)
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if err := fn(k[len(prefix):], v); err != nil {
			return err
		}
	}
	return nil
}

// liveChildren counts parent's children neither revoked nor expired at
// now.
func liveChildren(b *bbolt.Bucket, parent sharevat.GrantID, now time.Time) (int, error) {
	n := 0
	err := forEachChild(b, parent, func(id, v []byte) error {
		live, err := childLive(v, now)
		if err != nil {
			return fmt.Errorf("child %q of %q: %w", id, parent, err)
		}
		if live {
			n++
		}
		return nil
	})
	return n, err
}

// subtree returns root and its descendants, breadth first. A grant is
// visited once even if corrupt parent links form a cycle.
func subtree(tx *bbolt.Tx, b *bbolt.Bucket, root sharevat.GrantID) ([]sharevat.Grant, error) {
	g, err := getGrant(tx, root)
	if err != nil {
		return nil, err
	}
	out := []sharevat.Grant{g}
	seen := map[sharevat.GrantID]bool{root: true}
	for i := 0; i < len(out); i++ {
		err := forEachChild(b, out[i].ID, func(id, _ []byte) error {
			if seen[sharevat.GrantID(id)] {
				return nil
			}
			seen[sharevat.GrantID(id)] = true
			c, err := decodeGrant(tx.Bucket(bucketGrants).Get(id)) // missing: corrupt
			if err != nil {
				return fmt.Errorf("grant %q of grant_children index: %w", id, err)
			}
			out = append(out, c)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
