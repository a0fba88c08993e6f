package hostile

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// WebSocket opcodes (RFC 6455 §5.2).
const (
	OpContinuation = 0x0
	OpBinary       = 0x2
	OpClose        = 0x8
	OpPing         = 0x9
	OpPong         = 0xA
)

// ErrRefused is returned by Dial when the server answered the upgrade
// request with an HTTP error (such as 503 for too many connections).
var ErrRefused = errors.New("hostile: upgrade refused")

// Conn is one hostile WebSocket connection. Reads go through gorilla's
// client; every write is a frame built here and written, masked, straight
// to the socket through a buffer, so a vector controls framing (fragments,
// pings between fragments) and can queue many messages per system call.
// Reading is optional: a vector that never calls Read or Drain never
// reads, and the server's replies pile up in its own buffers.
type Conn struct {
	ws  *websocket.Conn
	raw net.Conn

	wmu  sync.Mutex // guards bw, rng and frame order
	bw   *bufio.Writer
	rng  *rand.PCG
	werr error // first write error

	sent     atomic.Int64 // data messages written (complete or started)
	received atomic.Int64 // data messages read

	readOnce sync.Once
	done     chan struct{} // closed when the read loop has ended
	end      End           // set before done is closed
}

// End says how a connection ended, as seen by its reader.
type End struct {
	Code   int    // close code of the server's close frame; 0 if none came
	Reason string // its reason
	Err    error  // when no close frame came: the read error (EOF, reset, timeout)
	Open   bool   // the connection was still open when the vector stopped looking
	ByUs   bool   // the vector closed it itself once it had what it wanted
}

func (e End) String() string {
	switch {
	case e.ByUs:
		return "closed by us"
	case e.Open:
		return "still open"
	case e.Code != 0:
		return fmt.Sprintf("close %d %q", e.Code, e.Reason)
	case e.Err != nil:
		return "no close frame: " + e.Err.Error()
	}
	return "unknown"
}

// Closed reports whether the server closed the connection with code.
func (e End) Closed(code int) bool { return !e.Open && !e.ByUs && e.Code == code }

// Dropped reports whether the connection ended without a close frame: a
// reset or EOF, which is what a crashed server looks like.
func (e End) Dropped() bool { return !e.Open && !e.ByUs && e.Code == 0 }

// Dial opens a WebSocket connection to url (ws://host/rpc). A refused
// upgrade (HTTP status other than 101) is ErrRefused wrapped with the
// status.
func Dial(ctx context.Context, url string) (*Conn, error) {
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second}
	ws, resp, err := d.DialContext(ctx, url, nil)
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			return nil, fmt.Errorf("%w: HTTP %d", ErrRefused, resp.StatusCode)
		}
		return nil, err
	}
	c := &Conn{
		ws:   ws,
		raw:  ws.UnderlyingConn(),
		rng:  rand.NewPCG(rand.Uint64(), rand.Uint64()),
		done: make(chan struct{}),
	}
	c.bw = bufio.NewWriterSize(c.raw, 256<<10)
	ws.SetReadLimit(-1)
	// gorilla would answer pings and close frames with writes of its
	// own, interleaved with ours: answer them through our writer.
	// Their write errors are not read errors: the read loop goes on.
	ws.SetPingHandler(func(data string) error {
		_ = c.WriteFrame(OpPong, true, []byte(data))
		_ = c.Flush()
		return nil
	})
	ws.SetCloseHandler(func(code int, text string) error {
		_ = c.WriteFrame(OpClose, true, websocket.FormatCloseMessage(code, ""))
		_ = c.Flush()
		return nil
	})
	return c, nil
}

// SetWriteDeadline bounds every write from now on (zero: none).
func (c *Conn) SetWriteDeadline(t time.Time) { _ = c.raw.SetWriteDeadline(t) }

// Sent is the number of data messages written so far (a fragmented
// message counts once, when its first fragment is written).
func (c *Conn) Sent() int64 { return c.sent.Load() }

// Received is the number of data messages read so far.
func (c *Conn) Received() int64 { return c.received.Load() }

// WriteFrame buffers one masked frame. Control frames (ping, pong, close)
// may be written between the fragments of a data message.
func (c *Conn) WriteFrame(opcode byte, fin bool, payload []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.writeFrameLocked(opcode, fin, payload)
}

func (c *Conn) writeFrameLocked(opcode byte, fin bool, payload []byte) error {
	if c.werr != nil {
		return c.werr
	}
	var hdr [14]byte
	hdr[0] = opcode
	if fin {
		hdr[0] |= 0x80
	}
	n := 2
	switch l := len(payload); {
	case l < 126:
		hdr[1] = 0x80 | byte(l)
	case l <= 0xFFFF:
		hdr[1] = 0x80 | 126
		binary.BigEndian.PutUint16(hdr[2:], uint16(l))
		n = 4
	default:
		hdr[1] = 0x80 | 127
		binary.BigEndian.PutUint64(hdr[2:], uint64(l))
		n = 10
	}
	var key [4]byte
	binary.LittleEndian.PutUint32(key[:], uint32(c.rng.Uint64()))
	copy(hdr[n:], key[:])
	n += 4
	if _, err := c.bw.Write(hdr[:n]); err != nil {
		return c.failWrite(err)
	}
	// Mask in chunks through the buffer's free space: no copy of payload.
	for i := 0; i < len(payload); {
		if c.bw.Available() == 0 {
			if err := c.bw.Flush(); err != nil {
				return c.failWrite(err)
			}
		}
		buf := c.bw.AvailableBuffer()[:min(c.bw.Available(), len(payload)-i)]
		for j := range buf {
			buf[j] = payload[i+j] ^ key[(i+j)&3]
		}
		_, _ = c.bw.Write(buf) // fits: no I/O, no error
		i += len(buf)
	}
	if opcode == OpBinary {
		c.sent.Add(1)
	}
	return nil
}

func (c *Conn) failWrite(err error) error {
	c.werr = err
	return err
}

// Queue buffers data as one complete binary message; it reaches the
// socket when the buffer fills or on Flush.
func (c *Conn) Queue(data []byte) error { return c.WriteFrame(OpBinary, true, data) }

// Send writes data as one complete binary message and flushes.
func (c *Conn) Send(data []byte) error {
	if err := c.Queue(data); err != nil {
		return err
	}
	return c.Flush()
}

// Flush writes what is buffered.
func (c *Conn) Flush() error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.werr != nil {
		return c.werr
	}
	if err := c.bw.Flush(); err != nil {
		return c.failWrite(err)
	}
	return nil
}

// WriteErr is the first write error, if any (a reset or broken pipe
// usually means the server dropped the connection).
func (c *Conn) WriteErr() error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.werr
}

// Read starts the read loop: every data message is counted and passed to
// fn (which may be nil), on the loop's goroutine, until the connection
// ends. Done is closed then, and End says how. Call Read or Drain once.
func (c *Conn) Read(fn func(data []byte)) {
	c.readOnce.Do(func() { go c.readLoop(websocket.BinaryMessage, fn) })
}

// readLoop counts every message and passes those of type want to fn.
func (c *Conn) readLoop(want int, fn func([]byte)) {
	defer close(c.done)
	for {
		typ, r, err := c.ws.NextReader()
		if err != nil {
			c.end = endOf(err)
			return
		}
		if typ != want || fn == nil {
			_, err = io.Copy(io.Discard, r)
		} else {
			var data []byte
			if data, err = io.ReadAll(r); err == nil {
				fn(data)
			}
		}
		if err != nil {
			c.end = endOf(err)
			return
		}
		c.received.Add(1)
	}
}

func endOf(err error) End {
	var ce *websocket.CloseError
	// 1006 is never sent: gorilla reports a connection lost without a
	// close frame (EOF) with it.
	if errors.As(err, &ce) && ce.Code != websocket.CloseAbnormalClosure {
		return End{Code: ce.Code, Reason: ce.Text}
	}
	return End{Err: err}
}

// Done is closed when the read loop has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Wait waits up to d for the read loop to end and returns how the
// connection ended; End.Open if it is still open. Without a read loop
// running, Wait starts one that discards (Drain).
func (c *Conn) Wait(d time.Duration) End {
	c.Read(nil)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.done:
		return c.end
	case <-t.C:
		return End{Open: true}
	}
}

// Drain reads and discards everything still coming, for up to d, and
// returns how the connection ended (End.Open if it did not within d). It
// is how a vector that never read learns whether the server closed it:
// the close frame is behind everything the server had queued.
func (c *Conn) Drain(d time.Duration) End { return c.Wait(d) }

// Close drops the connection without a closing handshake: a hostile peer
// owes the server nothing. The read loop, if any, ends.
func (c *Conn) Close() error {
	return c.raw.Close()
}
