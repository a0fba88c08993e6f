package apply

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/sharevat/sharevat"
)

// Digest fingerprints an op's content (kind, key, body, delete), to tell
// a retry from an op id reused for something else (check 1): SHA-256 over
// u64be(len(kind)) ‖ kind ‖ u64be(len(key)) ‖ key ‖ (1 if delete else 0)
// ‖ body. Batch, seq and preconditions are not content: a retry may
// regroup its ops. The digest is stored with every op (Entry.Digest), so
// it must never change.
func Digest(op *sharevat.Op) [32]byte {
	h := sha256.New()
	for _, s := range []string{op.Kind, op.Key} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	if op.Delete {
		h.Write([]byte{1})
	} else {
		h.Write([]byte{0})
	}
	h.Write(op.Body)
	var d [32]byte
	copy(d[:], h.Sum(nil))
	return d
}
