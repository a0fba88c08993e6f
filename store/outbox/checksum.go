package outbox

import (
	"encoding/binary"
	"encoding/json"
	"hash/crc32"

	bbolt "go.etcd.io/bbolt"
)

// Format 2 seals every record and every ids entry with a CRC-32C
// (Castagnoli) of its key and its content, so that a flipped byte in an
// op's body or id, or an overwritten stretch of a value, is found when the
// record is read — bbolt checks its pages' structure, not their data.

// castagnoli is the CRC-32C table.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// sumOf is the CRC-32C of key ‖ value.
func sumOf(key, value []byte) uint32 {
	return crc32.Update(crc32.Checksum(key, castagnoli), castagnoli, value)
}

// seal returns value prefixed with the 4-byte checksum of key ‖ value.
func seal(key, value []byte) []byte {
	out := make([]byte, 4, 4+len(value))
	binary.BigEndian.PutUint32(out, sumOf(key, value))
	return append(out, value...)
}

// unseal returns the content of a sealed value, or false if its checksum
// does not match (the key or the value was damaged).
func unseal(key, v []byte) ([]byte, bool) {
	if len(v) < 4 || binary.BigEndian.Uint32(v) != sumOf(key, v[4:]) {
		return nil, false
	}
	return v[4:], true
}

// upgradeV1 seals the records and ids entries of a format 1 file, in the
// caller's transaction, and marks the file format 2. A record that does
// not decode, or an ids entry of the wrong length, was already damaged:
// it is left as it is, so that it fails its checksum from now on and is
// reported as damaged, never sealed as if it were sound.
func upgradeV1(tx *bbolt.Tx) error {
	for _, name := range [][]byte{bucketPending, bucketDone, bucketFailed} {
		err := rewrite(tx.Bucket(name), func(k, v []byte) []byte {
			if len(k) != 8 || !json.Valid(v) || json.Unmarshal(v, &record{}) != nil {
				return nil
			}
			return seal(k, v)
		})
		if err != nil {
			return err
		}
	}
	err := rewrite(tx.Bucket(bucketIDs), func(k, v []byte) []byte {
		if len(v) != 9 {
			return nil
		}
		return seal(k, v)
	})
	if err != nil {
		return err
	}
	return tx.Bucket(bucketMeta).Put(keyFormat, []byte{formatVersion})
}

// rewrite replaces each value v of b with fn(k, v), unless fn returns nil.
func rewrite(b *bbolt.Bucket, fn func(k, v []byte) []byte) error {
	type kv struct{ k, v []byte }
	var out []kv
	err := b.ForEach(func(k, v []byte) error {
		if nv := fn(k, v); nv != nil {
			out = append(out, kv{append([]byte(nil), k...), nv})
		}
		return nil
	})
	for i := 0; err == nil && i < len(out); i++ {
		err = b.Put(out[i].k, out[i].v)
	}
	return err
}
