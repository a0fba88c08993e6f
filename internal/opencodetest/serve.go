package opencodetest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Serve is a running `opencode serve`: its local HTTP API (the one the
// TUI talks to), e.g. DELETE /session/{id}/share.
type Serve struct {
	URL    string // http://127.0.0.1:PORT
	cancel context.CancelFunc
	done   chan struct{}
}

var listening = regexp.MustCompile(`https?://127\.0\.0\.1:\d+`)

// Serve starts `opencode serve --port 0` in r's project and returns once
// it prints the URL it listens on (at most 2 minutes). The process group
// is killed at the test's end or by Close.
func (r *Root) Serve(t testing.TB) *Serve {
	t.Helper()
	cmd, cancel := r.command(context.Background(), "serve", "--hostname", "127.0.0.1", "--port", "0", "--print-logs")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &Serve{cancel: cancel, done: make(chan struct{})}
	t.Cleanup(s.Close)
	urls := make(chan string, 1)
	var log strings.Builder
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			if log.Len() < 64<<10 {
				log.WriteString(sc.Text() + "\n")
			}
			if u := listening.FindString(sc.Text()); u != "" && strings.Contains(sc.Text(), "listening") {
				select {
				case urls <- u:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, out)
		_ = cmd.Wait()
	}()
	select {
	case s.URL = <-urls:
		return s
	case <-s.done:
		t.Fatalf("opencode serve exited before listening:\n%s", log.String())
	case <-time.After(2 * time.Minute):
		t.Fatalf("opencode serve did not listen within 2 minutes")
	}
	return nil
}

// Do sends method path (with an optional JSON body) to the local API
// and returns the status and body.
func (s *Serve) Do(method, path, body string) (int, string, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		return 0, "", err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	c := &http.Client{Timeout: time.Minute}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	return resp.StatusCode, string(b), err
}

// Unshare asks opencode to unshare sessionID (DELETE /session/{id}/share),
// which makes opencode call the share server's DELETE.
func (s *Serve) Unshare(sessionID string) error {
	code, body, err := s.Do(http.MethodDelete, "/session/"+sessionID+"/share", "")
	if err != nil {
		return err
	}
	if code/100 != 2 {
		return fmt.Errorf("opencode serve: DELETE /session/%s/share: %d %s", sessionID, code, body)
	}
	return nil
}

// Close kills the serve process group and waits for it.
func (s *Serve) Close() {
	s.cancel()
	<-s.done
}
