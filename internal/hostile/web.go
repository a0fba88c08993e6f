package hostile

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gorilla/websocket"
)

// The Cap'n Web side of the hostile peer (docs/capnweb.md): the same
// Conn, writing text frames of JSON written here by hand, for the
// /capnweb door; and HTTP batches posted to it.

// OpText is the WebSocket text opcode: one Cap'n Web message per frame.
const OpText = 0x1

// WebURL turns serve's /rpc URL (ws://host/rpc) into its Cap'n Web
// WebSocket URL (ws://host/capnweb).
func WebURL(rpcURL string) string {
	return strings.TrimSuffix(rpcURL, "/rpc") + "/capnweb"
}

// BatchURL turns serve's /rpc URL into the HTTP batch URL of /capnweb
// (http://host/capnweb).
func BatchURL(rpcURL string) string {
	return "http" + strings.TrimPrefix(WebURL(rpcURL), "ws")
}

// QueueText buffers msg as one complete text message (one Cap'n Web
// message); it reaches the socket when the buffer fills or on Flush.
func (c *Conn) QueueText(msg string) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := c.writeFrameLocked(OpText, true, []byte(msg)); err != nil {
		return err
	}
	c.sent.Add(1)
	return nil
}

// ReadText starts the read loop of a Cap'n Web connection: every text
// message is counted and passed to fn (which may be nil) on the loop's
// goroutine until the connection ends. Call it instead of Read, once.
func (c *Conn) ReadText(fn func(msg []byte)) {
	c.readOnce.Do(func() { go c.readLoop(websocket.TextMessage, fn) })
}

// Cap'n Web messages, written by hand. Ids are the client's: its
// pushes count up from 1 (0 is the main interface, the Vault); its own
// exports count down from -1.

// jsonString quotes s as a JSON string.
func jsonString(s string) string { return strconv.Quote(s) }

// WebPush is ["push", ["pipeline", target, path, args]]: a call of the
// method at path on the import target with args (JSON texts).
func WebPush(target int64, path []string, args ...string) string {
	quoted := make([]string, len(path))
	for i, p := range path {
		quoted[i] = jsonString(p)
	}
	return fmt.Sprintf(`["push",["pipeline",%d,[%s],[%s]]]`, target, strings.Join(quoted, ","), strings.Join(args, ","))
}

// WebPull is ["pull", id]: asks for the answer of push id.
func WebPull(id int64) string { return fmt.Sprintf(`["pull",%d]`, id) }

// WebRestore is Vault.restore(token), pushed on the main interface.
func WebRestore(token string) string { return WebPush(0, []string{"restore"}, jsonString(token)) }

// WebReader is restore's share.reader(), pipelined on push restored.
func WebReader(restored int64) string { return WebPush(restored, []string{"share", "reader"}) }

// WebRead is Reader.read(from, limit) on push reader.
func WebRead(reader int64, from, limit int) string {
	return WebPush(reader, []string{"read"}, strconv.Itoa(from), strconv.Itoa(limit))
}

// WebSubscribe is Reader.subscribe(from, sink) on push reader, the sink
// being a function the client exports as id sink (negative).
func WebSubscribe(reader int64, from int, sink int64) string {
	return WebPush(reader, []string{"subscribe"}, strconv.Itoa(from), fmt.Sprintf(`["export",%d]`, sink))
}

// WebPingPadded is Vault.ping with one string argument of pad bytes: a
// message of about pad bytes the server must read and parse whole.
func WebPingPadded(pad int) string {
	return WebPush(0, []string{"ping"}, `"`+strings.Repeat("x", max(0, pad))+`"`)
}

// WebPingArray is Vault.ping with one escaped array of n zeros as its
// argument: a message of ~2n bytes that parses into n values.
func WebPingArray(n int) string {
	var b strings.Builder
	b.Grow(2*n + 64)
	b.WriteString(`["push",["pipeline",0,["ping"],[[[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('0')
	}
	b.WriteString(`]]]]]`)
	return b.String()
}

// WebPingObject is Vault.ping with one object of n distinct small
// fields: a message of ~10n bytes that parses into n fields.
func WebPingObject(n int) string {
	var b strings.Builder
	b.Grow(12*n + 64)
	b.WriteString(`["push",["pipeline",0,["ping"],[{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"%x":0`, i)
	}
	b.WriteString(`}]]]`)
	return b.String()
}

// webKind is the message type of a server message: "resolve", "reject",
// "push", "pull", "release", "abort" ("" when it is not one).
func webKind(msg []byte) string {
	const prefix = `["`
	s := string(msg[:min(len(msg), 16)])
	if !strings.HasPrefix(s, prefix) {
		return ""
	}
	s = s[len(prefix):]
	if i := strings.IndexByte(s, '"'); i > 0 {
		return s[:i]
	}
	return ""
}

// WebPingNested is Vault.ping with one argument nested depth arrays
// deep (escaped arrays, [[…]] each level).
func WebPingNested(depth int) string {
	return `["push",["pipeline",0,["ping"],[` + strings.Repeat("[[", depth) + strings.Repeat("]]", depth) + `]]]`
}
