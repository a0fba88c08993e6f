package hostile

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The MCP door (/mcp, Streamable HTTP; docs/mcp.md) under attack with
// junk and valid credentials: the vectors of issue 32's bugs 2 and 3 and
// their neighbours. Each posts raw HTTP, counting each answer's status
// in the report's ends.

// MCPURL turns serve's /rpc URL into its /mcp URL (http://host/mcp).
func MCPURL(rpcURL string) string {
	return "http" + strings.TrimPrefix(strings.TrimSuffix(rpcURL, "/rpc"), "ws") + "/mcp"
}

// MCPInitialize is an initialize request's body.
const MCPInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}`

// MCPAppendBody is a tools/call of append_ops whose ops carry bodies of
// about bodyBytes in all, in ops of at most 1,000,000 bytes each (under
// the vat's default body limit), of kind "nonsense": the whole body is
// decoded and checked, and nothing is ever stored.
func MCPAppendBody(bodyBytes int) string {
	var ops []string
	for left := bodyBytes; left > 0; left -= 1_000_000 {
		ops = append(ops, `{"kind":"nonsense","key":"k","body":"`+strings.Repeat("x", min(left, 1_000_000))+`"}`)
	}
	return `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"append_ops","arguments":{"ops":[` +
		strings.Join(ops, ",") + `]}}}`
}

// mcpPost posts body to url with bearer token (and session id, if any)
// and answers how it went ("HTTP <status>") and the session id it got.
func mcpPost(ctx context.Context, hc *http.Client, url, token, session, body string) (string, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return "", "", err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", "", err
	}
	defer resp.Body.Close()
	_, err = bufio.NewReader(resp.Body).WriteTo(discard{})
	return fmt.Sprintf("HTTP %d", resp.StatusCode), resp.Header.Get("Mcp-Session-Id"), err
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// MCPJunkInitialize is issue 32's bug 2: n initializes, each with a junk
// bearer of its own, from conns clients at once. Before the gate each
// opened a session that held a slot for the idle timeout.
func MCPJunkInitialize(ctx context.Context, rpcURL string, n, conns int) *Report {
	r := newReport("mcp-junk-initialize")
	defer r.timed()()
	url, hc := MCPURL(rpcURL), &http.Client{Timeout: 30 * time.Second}
	next := make(chan int)
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() {
			for i := range next {
				status, _, err := mcpPost(ctx, hc, url, fmt.Sprintf("junk-%d", i), "", MCPInitialize)
				r.posted(status, err)
			}
		})
	}
	for i := 0; i < n && ctx.Err() == nil; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	r.Detail = fmt.Sprintf("%d initializes with junk bearers, %d at once", n, conns)
	return r
}

// MCPAppendFlood is conns clients posting append_ops of about bodyBytes
// over and over until ctx ends, with bearer token. With token "garbage"
// it is issue 32's bug 3 (16 × ~7 MiB took the vat to 2,359 MiB against
// a 512 MiB budget); with a valid token each client opens a session
// first, and every call is decoded in full (its ops are then refused).
func MCPAppendFlood(ctx context.Context, rpcURL, token string, conns, bodyBytes int) *Report {
	r := newReport("mcp-append-flood")
	defer r.timed()()
	url, hc := MCPURL(rpcURL), &http.Client{Timeout: 60 * time.Second}
	body := MCPAppendBody(bodyBytes)
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() {
			_, session, _ := mcpPost(ctx, hc, url, token, "", MCPInitialize) // "" when refused: posted without
			for ctx.Err() == nil {
				status, _, err := mcpPost(ctx, hc, url, token, session, body)
				r.posted(status, err)
			}
		})
	}
	wg.Wait()
	r.Detail = fmt.Sprintf("%d clients posting %.1f MiB append_ops", conns, float64(len(body))/(1<<20))
	return r
}

// MCPWithheldBodies is conns connections that each declare a body of
// declared bytes with bearer token, send 12 bytes of it and withhold the
// rest for hold (or until ctx ends); the answers are counted.
func MCPWithheldBodies(ctx context.Context, rpcURL, token string, conns int, declared int64, hold time.Duration) *Report {
	r := newReport("mcp-withheld-bodies")
	defer r.timed()()
	host := strings.TrimPrefix(strings.TrimSuffix(MCPURL(rpcURL), "/mcp"), "http://")
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() { r.posted(withhold(ctx, host, token, declared, hold)) })
	}
	wg.Wait()
	r.Detail = fmt.Sprintf("%d connections declaring %.1f MiB, sending 12 bytes", conns, float64(declared)/(1<<20))
	return r
}

// withhold sends one such request and answers its status.
func withhold(ctx context.Context, host, token string, declared int64, hold time.Duration) (string, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(hold))
	if _, err := fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n{\"jsonrpc\":", host, token, declared); err != nil {
		return "", err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return "no answer", nil // held for hold: counted, not a failure
	}
	resp.Body.Close()
	return fmt.Sprintf("HTTP %d", resp.StatusCode), nil
}
