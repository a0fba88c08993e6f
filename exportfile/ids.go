package exportfile

import (
	"hash/maphash"

	"github.com/sharevat/sharevat"
)

// opIDSet remembers the op ids of an export and a digest of each op's
// content, to refuse an op id used twice with different content (which
// a share never holds) before anything is created. It keeps 16 bytes of
// hashes and a line number per op, not the ids: two different ids
// sharing a 64-bit hash would be taken for one (about one chance in
// 10^7 for two million ops), which only refuses the file.
type opIDSet map[uint64]opSeen

// opSeen is what opIDSet keeps of one op id.
type opSeen struct {
	content uint64
	line    int
}

// opIDSeed seeds opIDSet's hashes.
var opIDSeed = maphash.MakeSeed()

// add records op, read on line, or refuses it when its op id was read
// before with different content. A nil set records nothing.
func (s opIDSet) add(op *sharevat.Op, line int) error {
	if s == nil {
		return nil
	}
	id := maphash.String(opIDSeed, op.OpID)
	var h maphash.Hash
	h.SetSeed(opIDSeed)
	h.WriteString(op.Kind + "\x00" + op.Key + "\x00")
	if op.Delete {
		h.WriteByte(1)
	}
	h.WriteByte(0)
	h.Write(op.Body)
	content := h.Sum64()
	prev, ok := s[id]
	switch {
	case !ok:
		s[id] = opSeen{content: content, line: line}
	case prev.content != content:
		return formatf("line %d: op id %q was used on line %d for another op (a share never holds one op id twice): "+
			"the export is damaged; export the share again, or correct the file", line, op.OpID, prev.line)
	}
	return nil
}
