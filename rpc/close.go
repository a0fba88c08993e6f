package rpc

import (
	"fmt"
	"runtime/debug"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"
)

// Close reasons this package sends. Each fits the 123 bytes a close frame
// leaves for its reason.
const (
	reasonTextFrame = "sharevat: text frames are not supported; send one Cap'n Proto message per binary frame"
	reasonMalformed = "sharevat: malformed Cap'n Proto message"
	reasonInternal  = "sharevat: internal error"
	reasonShutdown  = "server shutting down"
)

// maxReasonLen is the room for a reason in a close frame: 125 bytes of
// control frame payload minus the 2-byte code.
const maxReasonLen = 123

func reasonTooLarge(limit int64) string {
	return fmt.Sprintf("sharevat: frame larger than %d bytes", limit)
}

func reasonAssembly(d time.Duration) string {
	return fmt.Sprintf("sharevat: message not complete within %s of its first frame", d)
}

func reasonKeepalive(d time.Duration) string {
	return fmt.Sprintf("sharevat: keepalive timeout: nothing received for %s", d)
}

// CloseError is a WebSocket close frame: its code and reason.
type CloseError struct {
	Code   int    // e.g. 1009 (websocket.CloseMessageTooBig)
	Reason string // may be empty
}

func (e *CloseError) Error() string {
	if e.Reason == "" {
		return fmt.Sprintf("websocket close %d", e.Code)
	}
	return fmt.Sprintf("%s (websocket close %d)", e.Reason, e.Code)
}

// Err reports why the connection ended: the peer's close frame, the close
// frame we sent because of a protocol violation or keepalive timeout, or a
// transport failure. It is nil while the connection is open and after a
// plain local Close.
func (c *Codec) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.end
}

// PeerClose returns the close frame the peer sent on its own initiative
// (not as the answer to ours), or nil.
func (c *Codec) PeerClose() *CloseError {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.peerInit {
		return nil
	}
	return c.received
}

// reject records code and reason as the end of the connection and sends
// them in our close frame. It returns them as a *CloseError.
func (c *Codec) reject(code int, reason string) error {
	ce := &CloseError{Code: code, Reason: truncateReason(reason)}
	c.setEnd(fmt.Errorf("sharevat: closing the connection: %w", ce))
	c.sendClose(ce.Code, ce.Reason)
	return ce
}

// fail records err, closes the socket without a handshake (the WebSocket
// state is unusable after a failed read or write) and returns err.
func (c *Codec) fail(err error) error {
	c.setEnd(err)
	c.kill()
	return err
}

func (c *Codec) setEnd(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.end == nil {
		c.end = err
	}
}

// sendClose sends our close frame once; later calls do nothing.
func (c *Codec) sendClose(code int, reason string) {
	c.mu.Lock()
	already := c.closeSent
	c.closeSent = true
	c.mu.Unlock()
	if already {
		return
	}
	msg := websocket.FormatCloseMessage(code, reason)
	_ = c.writeControl(websocket.CloseMessage, msg, c.opts.WriteTimeout)
}

// onClose runs inside a read when the peer's close frame arrives: record
// it and echo its code, as RFC 6455 §5.5.1 asks.
func (c *Codec) onClose(code int, text string) error {
	ce := &CloseError{Code: code, Reason: text}
	c.mu.Lock()
	initiated := !c.closeSent
	c.received, c.peerInit = ce, initiated
	c.mu.Unlock()
	if initiated {
		c.setEnd(fmt.Errorf("sharevat: peer closed the connection: %w", ce))
	}
	c.sendClose(code, "")
	return nil
}

// onPing answers a ping. It waits at most a second for the write lock, so
// a long write cannot stall the reader; the peer sees our data frames then.
func (c *Codec) onPing(data string) error {
	c.extendReadDeadline()
	_ = c.writeControl(websocket.PongMessage, []byte(data), time.Second)
	return nil
}

func (c *Codec) onPong(string) error {
	c.extendReadDeadline()
	return nil
}

// ping sends one ping and re-arms the timer, unless the codec is closing
// or dead. A missing pong is detected by the read deadline, not here.
func (c *Codec) ping() {
	if !c.startPing() {
		return
	}
	defer c.wg.Done()
	defer c.recoverPanic("keepalive", new(error))
	_ = c.writeControl(websocket.PingMessage, nil, c.opts.WriteTimeout)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closing {
		c.pinger.Reset(c.opts.PingInterval)
	}
}

// startPing registers a ping in progress, so Close waits for it; it
// reports false once the codec is closing or its socket is dead.
func (c *Codec) startPing() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.dead:
		return false
	default:
	}
	if c.closing {
		return false
	}
	c.wg.Add(1)
	return true
}

// recoverPanic turns a panic in this connection's code into a logged
// error that closes only this connection (close code 1011).
func (c *Codec) recoverPanic(op string, errp *error) {
	v := recover()
	if v == nil {
		return
	}
	c.opts.Logger.Error("sharevat/rpc: recovered panic, closing the connection",
		"op", op, "panic", v, "stack", string(debug.Stack()))
	_ = c.reject(websocket.CloseInternalServerErr, reasonInternal)
	*errp = c.fail(fmt.Errorf("sharevat: internal error in %s", op))
}

func (c *Codec) isClosing() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closing
}

func (c *Codec) isCloseSent() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closeSent
}

func (c *Codec) hasReceivedClose() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.received != nil
}

// truncateReason cuts reason to maxReasonLen bytes on a rune boundary.
func truncateReason(reason string) string {
	for len(reason) > maxReasonLen {
		_, size := utf8.DecodeLastRuneInString(reason)
		reason = reason[:len(reason)-size]
	}
	return reason
}
