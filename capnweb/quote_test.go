package capnweb_test

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/sharevat/sharevat/capnweb"
)

// A token-shaped string (sturdyref's format) and its secret, made up.
const (
	fakeSecret = "Qx7_vR2mK9-tL4wZ8bN1cF6hJ3pS5dG0aY2eU7iO4kM"
	fakeToken  = "svt1_abcdefghijklmnopqrstuvwx_" + fakeSecret
)

// leaks reports whether text holds any 6 consecutive characters of
// secret.
func leaks(text, secret string) bool {
	for i := 0; i+6 <= len(secret); i++ {
		if strings.Contains(text, secret[i:i+6]) {
			return true
		}
	}
	return false
}

// syncBuf is a log sink safe for the session's goroutines.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestPeerTextNeverQuoted: a token (or its secret alone) sent where a
// message type, an expression type, a method or a property name belongs
// is refused without any part of it in the error, the abort or the log;
// a short name is still quoted (the engine once quoted 40 bytes,
// 10 or 40 characters of the secret).
func TestPeerTextNeverQuoted(t *testing.T) {
	logs := &syncBuf{}
	s := mustServe(t, capnweb.Options{Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	for _, secret := range []string{fakeToken, fakeSecret} {
		c := mustDialRaw(t, s)
		c.send(`["` + secret + `",1]`)
		_, msgs := c.closeCode()
		if len(msgs) == 0 || !strings.Contains(msgs[0], `unknown message type <`) || leaks(msgs[0], fakeSecret) {
			t.Errorf("unknown message type: abort %q quotes the secret", msgs)
		}

		c = mustDialRaw(t, s)
		c.send(`["push",{"a":1}]`,
			`["push",["`+secret+`"]]`, `["pull",2]`,
			`["push",["pipeline",1,["`+secret+`"],[]]]`, `["pull",3]`,
			`["push",["pipeline",1,["nope","`+secret+`"]]]`, `["pull",4]`,
			`["push",["pipeline",0,["`+secret+`","x"],[]]]`, `["pull",5]`)
		for answer := range c.readN(4) {
			if !strings.Contains(answer, "bytes not shown>") || leaks(answer, fakeSecret) {
				t.Errorf("an answer quotes the secret: %s", answer)
			}
		}
	}
	if leaks(logs.String(), fakeSecret) {
		t.Errorf("the log quotes the secret: %s", logs)
	}
	c := mustDialRaw(t, s)
	c.send(`["push",{"a":1}]`, `["push",["pipeline",1,["frobnicate"],[]]]`, `["pull",2]`)
	if got := c.read(); got != `["reject",2,["error","TypeError","'frobnicate' is not a function."]]` {
		t.Errorf("a short name: %s, want it quoted", got)
	}
}

func TestSafeName(t *testing.T) {
	for in, want := range map[string]string{
		"append": "append", "share.appender": "share.appender", "": "", "$x_1": "$x_1",
		strings.Repeat("a", 32): strings.Repeat("a", 32),
		strings.Repeat("a", 33): "<33 bytes not shown>",
		fakeToken:               "<73 bytes not shown>",
		fakeSecret:              "<43 bytes not shown>",
		"a-b":                   "<3 bytes not shown>",
		"a\u200bb":              "<5 bytes not shown>",
	} {
		if got := capnweb.SafeName(in); got != want {
			t.Errorf("SafeName(%q) = %q, want %q", in, got, want)
		}
	}
}
