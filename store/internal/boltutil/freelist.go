package boltutil

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"slices"
)

// The bbolt v1 file layout read here (go.etcd.io/bbolt internal/common,
// native byte order, little-endian on every platform we build for): a
// page starts with a 16-byte header (id u64, flags u16, count u16,
// overflow u32); pages 0 and 1 are meta pages whose body is magic u32,
// version u32, pageSize u32, flags u32, root bucket (root pgid u64,
// sequence u64), freelist pgid u64, high-water pgid u64, txid u64, then
// an FNV-64a checksum of the 56 bytes before it. The freelist page lists
// the free page ids, sorted; a count of 0xFFFF means the first id slot
// holds the real count.
const (
	pageHeaderSize   = 16
	metaSize         = 64
	metaSumOffset    = 56
	metaMagic        = 0xED0CDAED
	metaVersion      = 2
	freelistPageFlag = 0x10
	noFreelist       = ^uint64(0)
)

// meta is what the check needs of a bbolt meta page.
type meta struct {
	root, freelist, pgid, txid uint64
}

// readMeta returns the meta page bbolt opens the file at: the valid one
// (magic, version, checksum) with the highest transaction id.
func readMeta(f io.ReaderAt, pageSize int) (meta, error) {
	var best meta
	found := false
	for i := range 2 {
		buf := make([]byte, metaSize)
		if _, err := f.ReadAt(buf, int64(i*pageSize+pageHeaderSize)); err != nil {
			continue
		}
		m, ok := decodeMeta(buf)
		if ok && (!found || m.txid > best.txid) {
			best, found = m, true
		}
	}
	if !found {
		return meta{}, fmt.Errorf("%w: neither meta page is valid", ErrCorrupt)
	}
	return best, nil
}

// decodeMeta decodes a meta page's body, reporting whether it is valid.
func decodeMeta(b []byte) (meta, bool) {
	ne := binary.NativeEndian
	h := fnv.New64a()
	h.Write(b[:metaSumOffset])
	if ne.Uint32(b[0:]) != metaMagic || ne.Uint32(b[4:]) != metaVersion || ne.Uint64(b[metaSumOffset:]) != h.Sum64() {
		return meta{}, false
	}
	return meta{root: ne.Uint64(b[16:]), freelist: ne.Uint64(b[32:]), pgid: ne.Uint64(b[40:]), txid: ne.Uint64(b[48:])}, true
}

// readFreelist reads and checks the freelist page m names: its header
// (its own id, the freelist flag, within the pages in use), then the ids
// (each a page in use by number, past the meta pages and not the
// freelist's own, strictly increasing: as bbolt writes them). It reads
// 8 bytes per free page, never the rest of the file. A damaged freelist
// would hand live pages out for reuse, so anything odd is ErrCorrupt.
func readFreelist(f io.ReaderAt, pageSize int, m meta) ([]uint64, error) {
	ne := binary.NativeEndian
	at := int64(m.freelist) * int64(pageSize)
	hdr := make([]byte, pageHeaderSize+8)
	if m.freelist < 2 || m.freelist >= m.pgid {
		return nil, fmt.Errorf("%w: the freelist page %d is outside the file's %d pages", ErrCorrupt, m.freelist, m.pgid)
	}
	if _, err := f.ReadAt(hdr, at); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	id, flags, count, overflow := ne.Uint64(hdr), ne.Uint16(hdr[8:]), uint64(ne.Uint16(hdr[10:])), uint64(ne.Uint32(hdr[12:]))
	last := m.freelist + overflow
	if id != m.freelist || flags != freelistPageFlag || last >= m.pgid {
		return nil, fmt.Errorf("%w: the freelist page %d has a damaged header", ErrCorrupt, m.freelist)
	}
	skip := uint64(0)
	if count == 0xFFFF {
		skip, count = 1, ne.Uint64(hdr[pageHeaderSize:])
	}
	if (skip+count)*8+pageHeaderSize > (overflow+1)*uint64(pageSize) {
		return nil, fmt.Errorf("%w: the freelist page %d counts %d ids, more than it holds", ErrCorrupt, m.freelist, count)
	}
	raw := make([]byte, count*8)
	if _, err := f.ReadAt(raw, at+int64(pageHeaderSize+skip*8)); err != nil {
		return nil, err
	}
	ids := make([]uint64, count)
	for i := range ids {
		ids[i] = ne.Uint64(raw[i*8:])
		bad := ids[i] < 2 || ids[i] >= m.pgid || (ids[i] >= m.freelist && ids[i] <= last) || (i > 0 && ids[i] <= ids[i-1])
		if bad {
			return nil, fmt.Errorf("%w: the freelist lists page %d, which cannot be free", ErrCorrupt, ids[i])
		}
	}
	return ids, nil
}

// isFree reports whether page id is in the sorted free ids.
func isFree(free []uint64, id uint64) bool {
	_, found := slices.BinarySearch(free, id)
	return found
}
