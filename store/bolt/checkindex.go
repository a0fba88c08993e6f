package bolt

import (
	"bytes"
	"encoding/binary"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
)

// shareIndexes checks share_updated, share_status and share_children
// against the share records, both ways.
func (c *checker) shareIndexes(tx *bbolt.Tx, shares map[sharevat.ShareID]*sharevat.Share) {
	updated, status, children := map[string]bool{}, map[string][]byte{}, map[string]bool{}
	for _, s := range shares {
		updated[string(updatedKey(s))] = true
		if s.Deleted {
			continue
		}
		status[string(s.ID)] = encodeStatus(s)
		if s.ParentID != "" {
			children[string(append(childKey(s), s.ID...))] = true
		}
	}
	c.keySet(tx, bucketShareUpdated, updated, nil)
	c.keySet(tx, bucketShareChildren, children, nil)
	c.keySet(tx, bucketShareStatus, nil, status)
}

// keySet checks that bucket name holds exactly the keys of want (empty
// values), or of values (with those values).
func (c *checker) keySet(tx *bbolt.Tx, name []byte, want map[string]bool, values map[string][]byte) {
	found := 0
	_ = tx.Bucket(name).ForEach(func(k, v []byte) error {
		w, ok := values[string(k)]
		switch {
		case values == nil && !want[string(k)], values != nil && !ok:
			c.add("", 0, "%s: an entry no record needs", name)
		case values != nil && !bytes.Equal(v, w):
			c.add("", 0, "%s: an entry does not match its record", name)
		default:
			found++
		}
		return nil
	})
	if n := max(len(want), len(values)); found < n {
		c.add("", 0, "%s: %d entries the records need are missing", name, n-found)
	}
}

// orphanLogs finds logs of shares that have no record or are deleted
// (shareLog reported the deleted ones).
func (c *checker) orphanLogs(tx *bbolt.Tx, shares map[sharevat.ShareID]*sharevat.Share) {
	_ = tx.Bucket(bucketLogs).ForEach(func(k, _ []byte) error {
		if shares[sharevat.ShareID(k)] == nil {
			c.add(sharevat.ShareID(k), 0, "a log with no share record")
		}
		return nil
	})
}

// grants checks every grant against its share, share_grants and
// grant_children, and those indexes against the grants.
func (c *checker) grants(tx *bbolt.Tx, shares map[sharevat.ShareID]*sharevat.Share) {
	byShare, children := map[string]bool{}, map[string][]byte{}
	_ = tx.Bucket(bucketGrants).ForEach(func(k, v []byte) error {
		g, err := decodeGrant(v)
		if err != nil || string(g.ID) != string(k) {
			c.add("", 0, "grant %q: its record does not decode or names another grant", k)
			return nil
		}
		s := shares[g.ShareID]
		switch {
		case g.ShareID != "" && s == nil:
			c.add(g.ShareID, 0, "grant %q is of a share with no record", g.ID)
		case s != nil && s.Deleted && !g.Revoked:
			c.add(g.ShareID, 0, "grant %q of the deleted share is not revoked", g.ID)
		}
		byShare[string(prefixKey(string(g.ShareID), []byte(g.ID)))] = true
		if g.Parent != "" {
			children[string(prefixKey(string(g.Parent), []byte(g.ID)))] = encodeChild(&g)
		}
		return nil
	})
	c.keySet(tx, bucketShareGrants, byShare, nil)
	if tx.Bucket(bucketGrantChildren) != nil {
		c.keySet(tx, bucketGrantChildren, nil, children)
	}
}

// audit checks that every audit record decodes and that audit_share
// points at records of its share.
func (c *checker) audit(tx *bbolt.Tx) {
	b := tx.Bucket(bucketAudit)
	_ = b.ForEach(func(k, v []byte) error {
		if _, err := decodeAudit(v); err != nil || len(k) != 8 {
			c.add("", 0, "audit record %x does not decode", k)
		}
		return nil
	})
	_ = tx.Bucket(bucketAuditShare).ForEach(func(k, _ []byte) error {
		n, w := binary.Uvarint(k)
		if w <= 0 || uint64(len(k)-w) != n+8 {
			c.add("", 0, "audit_share: a malformed key")
			return nil
		}
		r, err := decodeAudit(b.Get(k[w+int(n):]))
		if err != nil || string(r.ShareID) != string(k[w:w+int(n)]) {
			c.add(sharevat.ShareID(k[w:w+int(n)]), 0, "audit_share: an entry for an audit record of another share, or none")
		}
		return nil
	})
}
