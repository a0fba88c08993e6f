package exportfile

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bigOpencode generates an opencode session export of messages
// messages of 8 parts of 16 KiB of text each (~128 KiB a message), a
// piece at a time, never whole; every MiB it samples the heap, keeping
// its peak: what the reader holds while it reads.
type bigOpencode struct {
	messages int
	m        int // messages generated
	buf      bytes.Buffer
	done     bool
	produced int
	sampled  int
	peak     uint64 // the largest HeapAlloc sampled
}

var bigText = strings.Repeat("lorem ipsum ", 16<<10/12+1)[:16<<10]

func (g *bigOpencode) Read(p []byte) (int, error) {
	for g.buf.Len() == 0 {
		if g.done {
			return 0, io.EOF
		}
		g.fill()
	}
	n, _ := g.buf.Read(p)
	g.produced += n
	if g.produced-g.sampled >= 1<<20 {
		g.sample()
	}
	return n, nil
}

// fill generates the next piece: the head, a message, or the end.
func (g *bigOpencode) fill() {
	switch {
	case g.m == 0 && g.produced == 0:
		g.buf.WriteString(`{"info":{"id":"ses_big","projectID":"p","directory":"/src","title":"big","version":"1","time":{"created":1,"updated":2}},"messages":[`)
	case g.m == g.messages:
		g.buf.WriteString(`],"todos":[{"id":"1","content":"done","status":"completed"}]}`)
		g.done = true
		return
	}
	if g.m > 0 {
		g.buf.WriteByte(',')
	}
	fmt.Fprintf(&g.buf, `{"info":{"id":"msg_%06d","role":"user","model":{"providerID":"anthropic","modelID":"m%d"}},"parts":[`, g.m, g.m%3)
	for p := 0; p < 8; p++ {
		if p > 0 {
			g.buf.WriteByte(',')
		}
		fmt.Fprintf(&g.buf, `{"id":"prt_%06d_%d","messageID":"msg_%06d","type":"text","text":"%s"}`, g.m, p, g.m, bigText)
	}
	g.buf.WriteString("]}")
	g.m++
}

// sample records the heap in use.
func (g *bigOpencode) sample() {
	g.sampled = g.produced
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	g.peak = max(g.peak, ms.HeapAlloc)
}

// readBigOpencode runs import's check pass over a generated export of
// messages messages and returns the ops read and the peak heap.
func readBigOpencode(tb testing.TB, messages int) (ops int, peak uint64, size int) {
	runtime.GC()
	g := &bigOpencode{messages: messages}
	src, err := Open(g, FromAuto)
	require.NoError(tb, err)
	require.NoError(tb, Check(src))
	g.sample()
	return src.Total(), g.peak, g.produced
}

// TestImportOpencodeStreams: import's check pass over a 24 MiB opencode
// export holds one part at a time: the heap never reaches 16 MiB (it
// stays near 2-4 MiB, garbage included). Before: the export was decoded
// whole, a heap of over 3 times its size (77 MiB here). The heap is
// sampled while the export is generated, so nothing is timed; the
// process's RSS for a 160 MB file is in docs/guide.md (~25 MB, was 445 MB).
func TestImportOpencodeStreams(t *testing.T) {
	ops, peak, size := readBigOpencode(t, 192)
	t.Logf("an opencode export of %d MiB, %d ops: peak heap %.1f MiB", size>>20, ops, float64(peak)/(1<<20))
	assert.Equal(t, 1+3+192*9+1, ops, "the session, 3 models, each message and its 8 parts, the todos")
	assert.Less(t, peak, uint64(16<<20), "the check pass's peak heap for a %d MiB export", size>>20)
}

// BenchmarkImportOpencodeRead reads an opencode export of ~128 MiB
// through import's check pass and reports its peak heap.
func BenchmarkImportOpencodeRead(b *testing.B) {
	for range b.N {
		_, peak, size := readBigOpencode(b, 1024)
		b.SetBytes(int64(size))
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	}
}
