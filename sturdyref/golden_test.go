package sturdyref_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/sharevat/sharevat/sturdyref"
)

var update = flag.Bool("update", false, "rewrite ../testdata/tokens/golden.json")

var goldenPath = filepath.Join("..", "testdata", "tokens", "golden.json")

// golden is the file of fixed test vectors.
type golden struct {
	Comment   string        `json:"comment"`
	PepperHex string        `json:"pepper_hex"`
	Tokens    []goldenToken `json:"tokens"`
}

// goldenToken is one vector: the random bytes New read (id_hex, then
// secret_hex), the token text, and its verifier under the file's pepper.
type goldenToken struct {
	Token       string `json:"token"`
	GrantID     string `json:"grant_id"`
	IDHex       string `json:"id_hex"`
	SecretHex   string `json:"secret_hex"`
	VerifierHex string `json:"verifier_hex"`
}

// goldenInputs are the byte streams the vectors are minted from: edge
// cases first, then a seeded ChaCha8 stream (stable across Go versions).
func goldenInputs() [][]byte {
	const n = 15 + sturdyref.SecretLen
	in := [][]byte{bytes.Repeat([]byte{0}, n), bytes.Repeat([]byte{0xff}, n)}
	stream := rand.NewChaCha8([32]byte{'s', 'h', 'a', 'r', 'e', 'v', 'a', 't'})
	for range 6 {
		b := make([]byte, n)
		_, _ = stream.Read(b)
		in = append(in, b)
	}
	return in
}

// goldenPepper is 0x00, 0x01, …, 0x1f.
func goldenPepper() []byte {
	p := make([]byte, sturdyref.MinPepperLen)
	for i := range p {
		p[i] = byte(i)
	}
	return p
}

func TestGolden(t *testing.T) {
	if *update {
		writeGolden(t)
	}
	g := readGolden(t)
	v := mustVerifier(t, mustHex(t, g.PepperHex))
	if len(g.Tokens) == 0 {
		t.Fatal("golden file has no tokens")
	}
	for _, want := range g.Tokens {
		t.Run(want.GrantID, func(t *testing.T) { checkGolden(t, v, want) })
	}
}

// checkGolden checks both directions: bytes → token and text → token.
func checkGolden(t *testing.T, v *sturdyref.Verifier, want goldenToken) {
	minted, err := sturdyref.New(bytes.NewReader(mustHex(t, want.IDHex+want.SecretHex)))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if got := minted.Reveal(); got != want.Token {
		t.Errorf("New(id_hex||secret_hex).Reveal() = %q, want %q", got, want.Token)
	}
	parsed, err := sturdyref.Parse(want.Token)
	if err != nil {
		t.Fatalf("Parse(golden token): %v", err)
	}
	if got := string(parsed.GrantID); got != want.GrantID {
		t.Errorf("GrantID = %q, want %q", got, want.GrantID)
	}
	if got := parsed.Reveal(); got != want.Token {
		t.Errorf("Reveal() = %q, want %q", got, want.Token)
	}
	if parsed != minted {
		t.Error("parsed token differs from the token minted from the same bytes")
	}
	if got := hex.EncodeToString(v.Sum(parsed)); got != want.VerifierHex {
		t.Errorf("Sum = %s, want %s", got, want.VerifierHex)
	}
	if !v.Verify(parsed, mustHex(t, want.VerifierHex)) {
		t.Error("Verify(golden verifier) = false, want true")
	}
}

func readGolden(tb testing.TB) golden {
	tb.Helper()
	b, err := os.ReadFile(goldenPath)
	if err != nil {
		tb.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		tb.Fatalf("%s: %v", goldenPath, err)
	}
	return g
}

// writeGolden regenerates the file from goldenInputs and goldenPepper.
func writeGolden(t *testing.T) {
	t.Helper()
	pepper := goldenPepper()
	v := mustVerifier(t, pepper)
	g := golden{
		Comment:   "sturdyref golden vectors; regenerate with: go test ./sturdyref -run TestGolden -update",
		PepperHex: hex.EncodeToString(pepper),
	}
	for _, raw := range goldenInputs() {
		tok := mustNew(t, bytes.NewReader(raw))
		g.Tokens = append(g.Tokens, goldenToken{
			Token: tok.Reveal(), GrantID: string(tok.GrantID),
			IDHex: hex.EncodeToString(raw[:15]), SecretHex: hex.EncodeToString(raw[15:]),
			VerifierHex: hex.EncodeToString(v.Sum(tok)),
		})
	}
	b, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goldenPath, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// goldenTokens returns the token texts of the golden file.
func goldenTokens(tb testing.TB) []string {
	tb.Helper()
	var out []string
	for _, tok := range readGolden(tb).Tokens {
		out = append(out, tok.Token)
	}
	return out
}
