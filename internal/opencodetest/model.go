package opencodetest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// Turn is one scripted answer of the mock model: plain text, text that
// echoes what Echo matches in the last user message, a tool call, or a
// stream that stalls (for kill tests). Exactly one of Text, Echo, Tool
// or Stall is meant to be set.
type Turn struct {
	Text  string         // streamed in a few chunks
	Echo  *regexp.Regexp // the first match in the last user message is streamed back, inside "echo: …"
	Tool  *ToolCall      // one tool call; opencode runs it and asks again with its result
	Stall string         // streamed as a first chunk, then the stream hangs until the client leaves or the model closes
}

// ToolCall is a tool the mock model asks opencode to run.
type ToolCall struct {
	Name string         // e.g. "bash"
	Args map[string]any // e.g. {"command": "echo hi > f.txt", "description": "write f"}
}

// Text is a Turn that streams s.
func Text(s string) Turn { return Turn{Text: s} }

// Echo is a Turn that streams back the first match of re in the last
// user message (the prompt), as "echo: <match>".
func Echo(re *regexp.Regexp) Turn { return Turn{Echo: re} }

// Bash is a Turn that asks opencode to run command with its bash tool:
// the run then shows tool, step-start/step-finish and (when command
// changes a file in a git project) patch parts.
func Bash(command string) Turn {
	return Turn{Tool: &ToolCall{Name: "bash", Args: map[string]any{"command": command, "description": "run a command"}}}
}

// Stalled is a Turn that streams first and then hangs.
func Stalled(first string) Turn { return Turn{Stall: first} }

// DefaultAnswer is what the model streams when its script is used up.
const DefaultAnswer = "Mock answer."

// TitleAnswer is what the model answers to requests without tools
// (opencode's title and summary calls on small_model).
const TitleAnswer = "Mock title"

// Model is a mock OpenAI-compatible chat model on loopback
// (POST /v1/chat/completions, streamed as SSE `data:` chunks ending in
// `data: [DONE]`). Requests that offer tools (the agent's turns) take
// the next Turn of the script; requests without tools (title
// generation) get TitleAnswer.
type Model struct {
	URL string // the base URL for the provider's options.baseURL (…/v1)

	srv     *httptest.Server
	mu      sync.Mutex
	script  []Turn
	reqs    []ChatRequest
	calls   int
	stalled chan struct{} // closed when a Stall turn has sent its first chunk
	closing chan struct{}
}

// ChatRequest is the part of a chat completion request the tests look at.
type ChatRequest struct {
	Model    string           `json:"model"`
	Stream   bool             `json:"stream"`
	Messages []map[string]any `json:"messages"`
	Tools    []map[string]any `json:"tools"`
}

// NewModel starts a mock model serving script, closed at the test's end.
func NewModel(t testing.TB, script ...Turn) *Model {
	t.Helper()
	m := &Model{script: script, stalled: make(chan struct{}), closing: make(chan struct{})}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	m.URL = m.srv.URL + "/v1"
	t.Cleanup(m.Close)
	return m
}

// Close releases stalled streams and stops the server.
func (m *Model) Close() {
	m.mu.Lock()
	select {
	case <-m.closing:
	default:
		close(m.closing)
	}
	m.mu.Unlock()
	m.srv.CloseClientConnections()
	m.srv.Close()
}

// Push appends turns to the script (for the next run of a test).
func (m *Model) Push(turns ...Turn) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.script = append(m.script, turns...)
}

// Requests returns the chat requests received so far.
func (m *Model) Requests() []ChatRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]ChatRequest(nil), m.reqs...)
}

// StallStarted is closed once a Stalled turn has streamed its first
// chunk: the run is then mid-answer.
func (m *Model) StallStarted() <-chan struct{} { return m.stalled }

// next records req and picks its answer.
func (m *Model) next(req ChatRequest) Turn {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, req)
	if len(req.Tools) == 0 {
		return Text(TitleAnswer)
	}
	m.calls++
	if len(m.script) == 0 {
		return Text(DefaultAnswer)
	}
	t := m.script[0]
	m.script = m.script[1:]
	return t
}

func (m *Model) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, `{"error":{"message":"mock model: only POST /v1/chat/completions"}}`, http.StatusNotFound)
		return
	}
	var req ChatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"mock model: bad JSON"}}`, http.StatusBadRequest)
		return
	}
	turn := m.next(req)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	s := &sse{w: w, model: req.Model}
	switch {
	case turn.Tool != nil:
		args, _ := json.Marshal(turn.Tool.Args)
		s.chunk(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{
			"index": 0, "id": fmt.Sprintf("call_%d", len(m.Requests())), "type": "function",
			"function": map[string]any{"name": turn.Tool.Name, "arguments": string(args)},
		}}}, nil)
		s.finish("tool_calls")
	case turn.Stall != "":
		s.text(turn.Stall)
		m.mu.Lock()
		select {
		case <-m.stalled:
		default:
			close(m.stalled)
		}
		m.mu.Unlock()
		select {
		case <-r.Context().Done():
		case <-m.closing:
		}
	default:
		text := turn.Text
		if turn.Echo != nil {
			text = "echo: " + turn.Echo.FindString(lastUser(req.Messages))
		}
		s.text(text)
		s.finish("stop")
	}
}

// lastUser is the text of the last user message (string content or
// content parts of type text).
func lastUser(msgs []map[string]any) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i]["role"] != "user" {
			continue
		}
		switch c := msgs[i]["content"].(type) {
		case string:
			return c
		case []any:
			var b strings.Builder
			for _, p := range c {
				if pm, ok := p.(map[string]any); ok && pm["type"] == "text" {
					s, _ := pm["text"].(string)
					b.WriteString(s)
				}
			}
			return b.String()
		}
	}
	return ""
}

// sse writes OpenAI chat.completion.chunk events.
type sse struct {
	w     http.ResponseWriter
	model string
}

func (s *sse) chunk(delta map[string]any, finish any) {
	ev := map[string]any{
		"id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 0, "model": s.model,
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
	}
	if finish != nil {
		ev["usage"] = map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
	}
	b, _ := json.Marshal(ev)
	fmt.Fprintf(s.w, "data: %s\n\n", b)
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// text streams t in chunks of up to 16 bytes (split on byte boundaries
// of the UTF-8 string's runes).
func (s *sse) text(t string) {
	s.chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	r := []rune(t)
	for len(r) > 0 {
		n := min(16, len(r))
		s.chunk(map[string]any{"content": string(r[:n])}, nil)
		r = r[n:]
	}
}

func (s *sse) finish(reason string) {
	s.chunk(map[string]any{}, reason)
	fmt.Fprint(s.w, "data: [DONE]\n\n")
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}
