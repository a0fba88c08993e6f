package hostile

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StartMCPHealthy is StartHealthy over the MCP door: a go-sdk client
// session on rpcURL's /mcp with token (read and append) as its bearer,
// that appends one op with append_ops and reads it back with read_ops,
// over and over, opening a new session when one fails, until Stop. It
// opens its session before it returns.
func StartMCPHealthy(ctx context.Context, rpcURL, token string) (*Healthy, error) {
	url := MCPURL(rpcURL)
	cs, err := dialMCP(ctx, url, token)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &Healthy{url: url, token: token, start: time.Now(), cancel: cancel, done: make(chan struct{})}
	go h.runMCP(ctx, cs)
	return h, nil
}

// bearerRT adds a bearer token to every request.
type bearerRT string

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

func dialMCP(ctx context.Context, url, token string) (*mcp.ClientSession, error) {
	tr := &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1, DisableStandaloneSSE: true,
		HTTPClient: &http.Client{Transport: bearerRT(token), Timeout: 30 * time.Second}}
	return mcp.NewClient(&mcp.Implementation{Name: "healthy", Version: "1"}, nil).Connect(ctx, tr, nil)
}

func (h *Healthy) runMCP(ctx context.Context, cs *mcp.ClientSession) {
	defer close(h.done)
	defer func() {
		if cs != nil {
			cs.Close()
		}
	}()
	for i := 0; ctx.Err() == nil; i++ {
		if cs == nil {
			h.mu.Lock()
			h.redials++
			h.mu.Unlock()
			dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			var err error
			cs, err = dialMCP(dctx, h.url, h.token)
			cancel()
			if err != nil {
				h.failed(err)
				pause(ctx, 100*time.Millisecond)
				continue
			}
		}
		if err := h.mcpRound(ctx, cs, i); err != nil && ctx.Err() == nil {
			h.failed(err)
			cs.Close()
			cs = nil
		}
	}
}

// mcpRound appends one op and reads it back.
func (h *Healthy) mcpRound(ctx context.Context, cs *mcp.ClientSession, i int) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	id := fmt.Sprintf("mcp-healthy-%d-%d", h.start.UnixNano(), i)
	var ack struct {
		Results []struct {
			Status string `json:"status"`
			Cursor uint64 `json:"cursor"`
		} `json:"results"`
	}
	args := map[string]any{"ops": []any{map[string]any{"opId": id, "kind": "event", "body": map[string]any{"healthy": true}}}}
	if err := mcpCall(ctx, cs, "append_ops", args, &ack); err != nil {
		return err
	}
	if len(ack.Results) != 1 || ack.Results[0].Status != "applied" {
		return fmt.Errorf("append_ops: %+v", ack.Results)
	}
	h.count(&h.appends, false)
	var page struct {
		Ops []struct {
			OpID string `json:"opId"`
		} `json:"ops"`
	}
	if err := mcpCall(ctx, cs, "read_ops", map[string]any{"fromCursor": ack.Results[0].Cursor - 1, "limit": 1}, &page); err != nil {
		return err
	}
	if len(page.Ops) != 1 || page.Ops[0].OpID != id {
		return fmt.Errorf("read_ops: read back %d ops, not op %s", len(page.Ops), id)
	}
	h.count(&h.reads, true)
	return nil
}

// mcpCall calls a tool and decodes its structured answer into out.
func mcpCall(ctx context.Context, cs *mcp.ClientSession, name string, args, out any) error {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if res.IsError {
		return fmt.Errorf("%s: %v", name, res.Content)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}
