package opencodetest_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/opencodetest"
)

// chat posts a streamed chat request (with a tool on offer, as the agent
// does, unless noTools) and returns the response.
func chat(t *testing.T, m *opencodetest.Model, prompt string, noTools bool) *http.Response {
	t.Helper()
	req := map[string]any{"model": "mock-1", "stream": true,
		"messages": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": prompt}}}}}
	if !noTools {
		req["tools"] = []any{map[string]any{"type": "function", "function": map[string]any{"name": "bash"}}}
	}
	b, _ := json.Marshal(req)
	resp, err := http.Post(m.URL+"/chat/completions", "application/json", strings.NewReader(string(b)))
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	return resp
}

// events reads a whole stream: the text, the tool calls' names and
// arguments, the finish reason, and whether it ended in [DONE].
func events(t *testing.T, resp *http.Response) (text, tools, finish string, done bool) {
	t.Helper()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if line == "[DONE]" {
			done = true
			continue
		}
		var ev struct {
			Choices []struct {
				Delta struct {
					Content   string
					ToolCalls []struct {
						Function struct{ Name, Arguments string }
					} `json:"tool_calls"`
				}
				FinishReason *string `json:"finish_reason"`
			}
		}
		require.NoError(t, json.Unmarshal([]byte(line), &ev), line)
		for _, c := range ev.Choices {
			text += c.Delta.Content
			for _, tc := range c.Delta.ToolCalls {
				tools += tc.Function.Name + " " + tc.Function.Arguments
			}
			if c.FinishReason != nil {
				finish = *c.FinishReason
			}
		}
	}
	return
}

// TestModelStreamsItsScript: the mock model answers the agent's
// requests with its turns in order (a tool call, an echo of the prompt,
// a long text in several chunks, then DefaultAnswer), title requests
// (no tools) with TitleAnswer without using a turn, each as SSE chunks
// ending in [DONE].
func TestModelStreamsItsScript(t *testing.T) {
	long := strings.Repeat("0123456789", 5)
	m := opencodetest.NewModel(t, opencodetest.Bash("echo hi"), opencodetest.Echo(regexp.MustCompile(`word-\w+`)), opencodetest.Text(long))
	text, tools, finish, done := events(t, chat(t, m, "go", false))
	assert.Equal(t, `bash {"command":"echo hi","description":"run a command"}`, tools)
	assert.Equal(t, "tool_calls", finish)
	assert.Empty(t, text)
	assert.True(t, done)

	text, _, finish, done = events(t, chat(t, m, "a title please", true))
	assert.Equal(t, opencodetest.TitleAnswer, text)
	assert.Equal(t, "stop", finish)
	assert.True(t, done)

	text, _, _, _ = events(t, chat(t, m, "say word-banana now", false))
	assert.Equal(t, "echo: word-banana", text)
	text, _, _, done = events(t, chat(t, m, "more", false))
	assert.Equal(t, long, text)
	assert.True(t, done)
	text, _, _, _ = events(t, chat(t, m, "more", false))
	assert.Equal(t, opencodetest.DefaultAnswer, text)
	assert.Len(t, m.Requests(), 5)
}

// TestModelStalls: a Stalled turn streams its first chunk, says so on
// StallStarted, and holds the stream open until the model closes.
func TestModelStalls(t *testing.T) {
	m := opencodetest.NewModel(t, opencodetest.Stalled("first words"))
	resp := chat(t, m, "go", false)
	<-m.StallStarted()
	r := bufio.NewReader(resp.Body)
	var got strings.Builder
	for !strings.Contains(got.String(), "first words") {
		line, err := r.ReadString('\n')
		require.NoError(t, err)
		got.WriteString(line)
	}
	m.Close()
	text, _, finish, done := events(t, &http.Response{Body: resp.Body})
	assert.Empty(t, text+finish, "nothing after the stall")
	assert.False(t, done, "a stalled stream never ends in [DONE]")
}
