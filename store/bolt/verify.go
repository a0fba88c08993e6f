package bolt

import (
	"bytes"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/apply"
)

// Every log record stores the digest of its op's content (kind, key,
// body, delete; apply.Digest), and the op-id index stores the
// cursor and digest of every op id. A record served to a caller is
// checked against both, so a damaged byte in its content, its op id or
// its digest is an error (ECorrupt), never another op served as if
// valid. Format 1 leaves the batch id, seq and time of a record without
// a check of their own.

// contentDigest is the digest of the content an entry or entity holds.
func contentDigest(kind, key string, body []byte, del bool) [32]byte {
	return apply.Digest(&sharevat.Op{Kind: kind, Key: key, Body: body, Delete: del})
}

// verifyEntry checks a decoded log entry against its own digest and
// against the op-id index ops.
func verifyEntry(e *sharevat.Entry, ops *bbolt.Bucket) error {
	if contentDigest(e.Kind, e.Key, e.Body, e.Delete) != e.Digest {
		return corruptf("content does not match its digest")
	}
	v := ops.Get([]byte(e.OpID))
	if v == nil {
		return corruptf("its op id is not in the op-id index")
	}
	c, d, err := decodeOpIndex(v)
	if err != nil {
		return err
	}
	if c != e.Cursor || d != e.Digest {
		return corruptf("the op-id index puts its op id at cursor %d with another digest or cursor", c)
	}
	return nil
}

// verifyIndexed checks what the op-id index says of opID (cursor c,
// digest d) against the log record at c, before a duplicate or a met
// dependency is answered from it. An op before earliest was compacted:
// the index entry is all there is (its length was checked).
func verifyIndexed(log, ops *bbolt.Bucket, opID string, c sharevat.Cursor, d [32]byte, earliest sharevat.Cursor) error {
	if c == 0 {
		return corruptf("the op-id index puts op id at cursor 0")
	}
	if c < earliest {
		return nil
	}
	v := log.Get(u64Key(uint64(c)))
	if v == nil {
		return corruptf("the op-id index points at cursor %d, which the log does not hold", c)
	}
	e, err := decodeEntry(u64Key(uint64(c)), v)
	if err != nil {
		return err
	}
	if e.OpID != opID || e.Digest != d {
		return corruptf("the op-id index and the log disagree at cursor %d", c)
	}
	return verifyEntry(&e, ops)
}

// verifyEntity checks a state entity against the log record that wrote
// it: same time, and the record's digest is that of the entity's
// content. A version-2 entity (its log record compacted) is checked
// against the digest it carries.
func verifyEntity(log *bbolt.Bucket, ent *sharevat.Entity, raw []byte) error {
	if raw[0] == entityVersion {
		if d := contentDigest(ent.Kind, ent.Key, ent.Body, false); !bytes.Equal(d[:], raw[entityFixed:entity2Fixed]) {
			return corruptf("entity %s/%q: content does not match its digest", ent.Kind, ent.Key)
		}
		return nil
	}
	v := log.Get(u64Key(uint64(ent.Cursor)))
	if len(v) < entryFixed {
		return corruptf("entity %s/%q: its log record at cursor %d is missing or short", ent.Kind, ent.Key, ent.Cursor)
	}
	if !bytes.Equal(v[2:10], raw[9:entityFixed]) {
		return corruptf("entity %s/%q: its time differs from its log record's", ent.Kind, ent.Key)
	}
	if d := contentDigest(ent.Kind, ent.Key, ent.Body, false); !bytes.Equal(d[:], v[14:entryFixed]) {
		return corruptf("entity %s/%q: content does not match the digest of its log record", ent.Kind, ent.Key)
	}
	return nil
}
