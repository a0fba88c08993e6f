package privacy_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/sharevat/sharevat/privacy"
	"github.com/sharevat/sharevat/privacy/privacytest"
)

// transcript builds a JSON body of about size bytes shaped like an agent
// session's parts: text parts and tool outputs holding the ordinary
// corpus (code, a shell session, configuration, prose), which has no
// secret, so this measures the scanner's cost on what most bodies are.
func transcript(tb testing.TB, size int) []byte {
	ord := privacytest.MustOrdinary(tb)
	names := make([]string, 0, len(ord))
	for name := range ord {
		names = append(names, name)
	}
	slices.Sort(names)
	type part struct {
		Type   string `json:"type"`
		Text   string `json:"text,omitempty"`
		Tool   string `json:"tool,omitempty"`
		Output string `json:"output,omitempty"`
	}
	var parts []part
	n := 0
	for i := 0; n < size; i++ {
		text := ord[names[i%len(names)]]
		p := part{Type: "text", Text: text}
		if i%2 == 1 {
			p = part{Type: "tool", Tool: "bash", Output: text}
		}
		parts = append(parts, p)
		n += len(text) + 40
	}
	b, err := json.Marshal(map[string]any{"role": "assistant", "parts": parts})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// BenchmarkScanTranscript scans a 1 MiB body of ordinary transcript text
// (no secret): the figure in the README.
func BenchmarkScanTranscript(b *testing.B) {
	body := transcript(b, 1<<20)
	if ms := privacy.Scan(body); len(ms) != 0 {
		b.Fatalf("the ordinary corpus holds a match: %+v", ms[0])
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		privacy.Scan(body)
	}
}

// BenchmarkScanPart scans one op body of two parts (about 5 KiB) of
// ordinary text: the guard's cost for a typical op.
func BenchmarkScanPart(b *testing.B) {
	body := transcript(b, 4<<10)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		privacy.Scan(body)
	}
}

// BenchmarkRedactPlanted redacts a 1 MiB transcript whose every fourth
// part is a planted body.
func BenchmarkRedactPlanted(b *testing.B) {
	body := transcript(b, 1<<20)
	planted := privacytest.MustPlanted(b)
	// Every fourth part of the transcript becomes a planted body.
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		b.Fatal(err)
	}
	parts := doc["parts"].([]any)
	for i := range parts {
		if i%4 == 0 {
			var v any
			_ = json.Unmarshal(planted[i/4%len(planted)].Body, &v)
			parts[i] = v
		}
	}
	withSecrets, err := json.Marshal(doc)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(withSecrets)))
	b.ReportAllocs()
	for b.Loop() {
		privacy.Redact(withSecrets)
	}
}

// BenchmarkWorstCases measures the bodies TestWorstCases builds, 1 MiB
// each.
func BenchmarkWorstCases(b *testing.B) {
	for name, body := range worstCases(1 << 20) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				privacy.Redact(body)
			}
		})
	}
}

func ExampleRedact() {
	body := []byte(`{"text":"export GITHUB_TOKEN=` + fakeGitHub + `"}`)
	redacted, n := privacy.Redact(body)
	fmt.Println(string(redacted), n)
	// Output: {"text":"export GITHUB_TOKEN=[REDACTED:github-pat]"} 1
}
