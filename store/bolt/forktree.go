package bolt

import (
	"bytes"
	"encoding/binary"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
)

// The fork_tree index charges each live fork to its fork tree (the
// share its chain of parents starts at), for sharevat.ForkQuota:
//
//	fork_tree  uvarint len(root id) ‖ root id ‖ fork id → 8-byte bytes
//	           the fork copied. Live forks only: Delete removes the
//	           entry. Created by the first fork that needs it, so a file
//	           without it (no fork made since) is still whole; forks made
//	           before it existed are not charged.
var bucketForkTree = []byte("fork_tree")

// maxTreeWalk bounds the walk from a share to its tree's root, so that
// corrupt parent links that form a cycle end it.
const maxTreeWalk = 1 << 12

// treeRoot is the root of s's fork tree: the first share up its chain
// of parents (deleted ones included) that was not forked.
func treeRoot(tx *bbolt.Tx, s *sharevat.Share) (sharevat.ShareID, error) {
	cur := *s
	for range maxTreeWalk {
		if cur.ParentID == "" {
			return cur.ID, nil
		}
		next, err := getShare(tx, cur.ParentID)
		if err != nil {
			return "", err
		}
		cur = next
	}
	return "", corruptf("share %q: a chain of more than %d parents", s.ID, maxTreeWalk)
}

// treeUsage counts root's live forks and the bytes they are charged.
func treeUsage(b *bbolt.Bucket, root sharevat.ShareID) (forks int, used int64) {
	prefix := prefixKey(string(root), nil)
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		forks++
		if len(v) == 8 {
			used += int64(binary.BigEndian.Uint64(v))
		}
	}
	return forks, used
}

// liveForks counts parent's live forks.
func liveForks(tx *bbolt.Tx, parent sharevat.ShareID) (int, error) {
	n := 0
	err := forEachChildShare(tx, parent, func(sharevat.ShareID) error { n++; return nil })
	return n, err
}

// forkCharge is one fork's charge to its tree, checked against q before
// (count) and after (bytes) the copy, and recorded with charge.
type forkCharge struct {
	q     sharevat.ForkQuota
	tree  *bbolt.Bucket
	root  sharevat.ShareID
	forks int   // live forks of the tree before this one
	used  int64 // bytes charged to the tree before this one
}

// chargeFork opens p's tree and refuses a fork of p past q's counts.
func chargeFork(tx *bbolt.Tx, p *sharevat.Share, q sharevat.ForkQuota) (*forkCharge, error) {
	if q.MaxForks > 0 {
		n, err := liveForks(tx, p.ID)
		if err != nil {
			return nil, err
		}
		if n >= q.MaxForks {
			return nil, sharevat.ForkQuotaError(n, q.MaxForks)
		}
	}
	tree, err := tx.CreateBucketIfNotExists(bucketForkTree)
	if err != nil {
		return nil, err
	}
	root, err := treeRoot(tx, p)
	if err != nil {
		return nil, err
	}
	c := &forkCharge{q: q, tree: tree, root: root}
	c.forks, c.used = treeUsage(tree, root)
	if q.MaxTreeForks > 0 && c.forks >= q.MaxTreeForks {
		return nil, sharevat.TreeForksQuotaError(c.forks, q.MaxTreeForks)
	}
	return c, nil
}

// charge records fork id's bytes in its tree, refusing them past the
// tree's byte quota.
func (c *forkCharge) charge(id sharevat.ShareID, n int64) error {
	if max := c.q.MaxTreeBytes; max > 0 && c.used+n > max {
		return sharevat.TreeBytesQuotaError(c.used, n, max)
	}
	return c.tree.Put(prefixKey(string(c.root), []byte(id)), binary.BigEndian.AppendUint64(nil, uint64(n)))
}

// unchargeFork removes deleted fork s from its tree's charges.
func unchargeFork(tx *bbolt.Tx, s *sharevat.Share) error {
	tree := tx.Bucket(bucketForkTree)
	if tree == nil || s.ParentID == "" {
		return nil
	}
	root, err := treeRoot(tx, s)
	if err != nil {
		return err
	}
	return tree.Delete(prefixKey(string(root), []byte(s.ID)))
}
