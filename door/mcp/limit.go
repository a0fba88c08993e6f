package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sharevat/sharevat/door/gate"
)

// Session bounds of the Streamable HTTP door. A session is made by an
// initialize whose token the gate redeemed; without them one token could
// open sessions, each held until SessionTimeout, until memory ran out.
const (
	// DefaultMaxSessions is the default HTTPOptions.MaxSessions.
	DefaultMaxSessions = 1024
	// DefaultMaxSessionsPerToken is the default
	// HTTPOptions.MaxSessionsPerToken.
	DefaultMaxSessionsPerToken = 64
	// DefaultSessionMemory is the default HTTPOptions.SessionMemory: about
	// what a live session holds (the SDK's session and transport, the
	// tool's Share and its bootstrap), with room for its buffers.
	DefaultSessionMemory = 64 << 10
)

// Budget is the server's one memory budget (rpc.MemoryPool).
type Budget = gate.Budget

// sessionHeader is the Streamable HTTP session id header.
const sessionHeader = "Mcp-Session-Id"

// limiter admits new sessions within the bounds and holds each one's
// share of the budget until it ends.
type limiter struct {
	srv      *mcp.Server
	max      int
	perToken int
	memory   int64
	budget   Budget

	mu      sync.Mutex
	live    int
	byToken map[string]int // live sessions by token digest
}

// wrap serves next, refusing with 503 an initialize that would make a
// session over the bounds, and with 400 a POST that is not an initialize
// and names no session (the Streamable HTTP transport's rule). Only an
// initialize makes a session that lives past its request.
func (l *limiter) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get(sessionHeader) != "" {
			next.ServeHTTP(w, r)
			return
		}
		id, init := initializes(r)
		if !init {
			noSession(w, id)
			return
		}
		user := ""
		if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
			user = ti.UserID
		}
		if msg := l.reserve(user); msg != "" {
			http.Error(w, "unavailable: "+msg, http.StatusServiceUnavailable)
			return
		}
		next.ServeHTTP(w, r)
		l.bind(w.Header().Get(sessionHeader), user)
	})
}

// initializes reports whether r's body (in memory: the gate read it) is
// an initialize, or a batch or malformed payload the SDK judges itself
// (a batch may hold one), and answers the request's id for the error
// when it is not; r.Body is left to read from its start.
func initializes(r *http.Request) (json.RawMessage, bool) {
	b, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	if err != nil {
		return nil, true
	}
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '[' {
		return nil, true
	}
	var m struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
	}
	if json.Unmarshal(b, &m) != nil || m.Method == "initialize" {
		return nil, true
	}
	return m.ID, false
}

// noSession answers 400 to a request that names no session and is not an
// initialize, with a JSON-RPC error (-32600, invalid request) for id.
func noSession(w http.ResponseWriter, id json.RawMessage) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{
		"code": -32600, "message": "invalid: no Mcp-Session-Id header: send initialize first, then the session id it answers with every request"}})
}

// reserve takes a session's place for user, or says why not.
func (l *limiter) reserve(user string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.live >= l.max:
		return fmt.Sprintf("the server holds its limit of %d MCP sessions; retry later", l.max)
	case l.byToken[user] >= l.perToken:
		return fmt.Sprintf("this token holds its limit of %d MCP sessions; end one (DELETE) first", l.perToken)
	case l.budget != nil && !l.budget.Take(l.memory):
		return "the server's memory budget is full; retry later"
	}
	l.live++
	l.byToken[user]++
	return ""
}

// release gives back a place reserve took.
func (l *limiter) release(user string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.live--
	if l.byToken[user]--; l.byToken[user] <= 0 {
		delete(l.byToken, user)
	}
	if l.budget != nil {
		l.budget.Give(l.memory)
	}
}

// bind ties the place reserved to the session id made (if any): it is
// released when that session ends, or now if none lives (a request that
// did not initialize one, whose session the SDK closes as it answers).
func (l *limiter) bind(id, user string) {
	if id != "" {
		for ss := range l.srv.Sessions() {
			if ss.ID() == id && ss.InitializeParams() != nil {
				go func() {
					_ = ss.Wait() // how it ended does not matter here
					l.release(user)
				}()
				return
			}
		}
	}
	l.release(user)
}
