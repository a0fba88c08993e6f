// Package privacytest loads the privacy guard's fixture corpus
// (privacy/testdata): planted secrets, generated at load time from the
// templates of planted.txt, and look-alikes that must pass untouched.
// The privacy tests and the end-to-end tests that append the corpus
// through a real vat share it. Only tests import it.
package privacytest

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Planted is one body holding planted secrets of one rule.
type Planted struct {
	Name string // file:line and variant, for messages
	Rule string // the rule that must find each secret
	Body []byte // a JSON op body
	Want []byte // Body with each secret replaced by [REDACTED:<its rule>]
	// Rules is the rule of each secret, in order: Rule, but where the
	// secret's template names another (⟦@<rule>:…⟧).
	Rules []string
	// Needles are what must never be found where the body went once
	// redacted: each secret whole, when it is one line, and each
	// generated part of it of 12 or more bytes.
	Needles []string
}

// LookAlike is a body that holds no secret and must pass untouched.
type LookAlike struct {
	Name string
	Body []byte
}

// Dir is the corpus directory, privacy/testdata.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata")
}

// MustPlanted loads planted.txt. Each text template gives two bodies:
// {"text": …}, and the same JSON again as the text of a JSON string
// ({"output": "{\"text\": …}"}, as a tool's JSON output is kept).
func MustPlanted(tb testing.TB) []Planted {
	tb.Helper()
	var out []Planted
	for _, l := range mustLines(tb, "planted.txt") {
		rule, tpl, ok := strings.Cut(l.text, "\t")
		if !ok {
			tb.Fatalf("%s: want <rule> TAB <template>", l.name)
		}
		rng := rand.New(rand.NewPCG(0x5eed, uint64(l.line)))
		if strings.HasPrefix(tpl, "{") {
			body, want, rules, needles := expand(tb, l.name, tpl, rule, rng, true)
			out = append(out, Planted{l.name, rule, []byte(body), []byte(want), rules, needles})
			continue
		}
		text, want, rules, needles := expand(tb, l.name, unescape(tpl), rule, rng, false)
		out = append(out,
			Planted{l.name + "/text", rule, textBody(text), textBody(want), rules, needles},
			Planted{l.name + "/nested", rule, nestedBody(text), nestedBody(want), rules, needles})
	}
	return out
}

// MustLookAlikes loads lookalikes.txt and the files of ordinary/, each
// as {"text": …} and, for ordinary/, also nested like MustPlanted's.
func MustLookAlikes(tb testing.TB) []LookAlike {
	tb.Helper()
	var out []LookAlike
	for _, l := range mustLines(tb, "lookalikes.txt") {
		if strings.HasPrefix(l.text, "{") {
			out = append(out, LookAlike{l.name, []byte(l.text)})
			continue
		}
		out = append(out, LookAlike{l.name, textBody(unescape(l.text))})
	}
	for name, text := range MustOrdinary(tb) {
		out = append(out, LookAlike{name, textBody(text)}, LookAlike{name + "/nested", nestedBody(text)})
	}
	return out
}

// MustOrdinary returns the files of ordinary/ by name: code, a shell
// session, configuration and prose, free of secrets.
func MustOrdinary(tb testing.TB) map[string]string {
	tb.Helper()
	dir := filepath.Join(Dir(), "ordinary")
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	out := make(map[string]string)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		out["ordinary/"+e.Name()] = string(b)
	}
	return out
}

func textBody(text string) []byte {
	b, err := json.Marshal(map[string]string{"text": text})
	if err != nil {
		panic(err)
	}
	return b
}

func nestedBody(text string) []byte {
	b, err := json.Marshal(map[string]string{"output": string(textBody(text))})
	if err != nil {
		panic(err)
	}
	return b
}

type line struct {
	name string
	line int
	text string
}

// mustLines returns the lines of a corpus file that are neither blank
// nor comments ('#' first).
func mustLines(tb testing.TB, file string) []line {
	tb.Helper()
	f, err := os.Open(filepath.Join(Dir(), file))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []line
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		if t := sc.Text(); t != "" && !strings.HasPrefix(t, "#") {
			out = append(out, line{fmt.Sprintf("%s:%d", file, n), n, t})
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// unescape turns \n, \r, \t and \\ of a text template into the bytes
// they stand for.
func unescape(s string) string {
	return strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\r`, "\r", `\t`, "\t").Replace(s)
}

// The generators' charsets.
var classes = map[string]string{
	"alnum":    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
	"alpha":    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
	"upper":    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
	"lowernum": "abcdefghijklmnopqrstuvwxyz0123456789",
	"b32u":     "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
	"b32l":     "abcdefghijklmnopqrstuvwxyz234567",
	"hex":      "0123456789abcdef",
	"HEX":      "0123456789ABCDEF",
	"digits":   "0123456789",
	"b64":      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
	"b64url":   "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
	"bech32":   "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
}

// expand generates a template's secrets. It returns the text, the text
// with each secret replaced by [REDACTED:<its rule>], the rule of each
// secret (rule, unless its template starts with @<rule>:) and the
// needles. In a
// JSON template, {pem:N} joins its lines with the JSON escape \n, and
// {pemq:N} with \\n (the escape of JSON text held in a JSON string).
func expand(tb testing.TB, name, tpl, rule string, rng *rand.Rand, jsonMode bool) (text, want string, rules, needles []string) {
	tb.Helper()
	var t, w strings.Builder
	for {
		open := strings.Index(tpl, "⟦")
		if open < 0 {
			break
		}
		end := strings.Index(tpl[open:], "⟧")
		if end < 0 {
			tb.Fatalf("%s: ⟦ without ⟧", name)
		}
		t.WriteString(tpl[:open])
		w.WriteString(tpl[:open])
		stpl, srule := secretRule(tpl[open+len("⟦"):open+end], rule)
		secret, parts := generate(tb, name, stpl, rng, jsonMode)
		secret, parts = encode(secret, parts)
		t.WriteString(secret)
		w.WriteString("[REDACTED:" + srule + "]")
		rules = append(rules, srule)
		if !strings.ContainsAny(secret, "\n\\") && len(secret) >= 12 {
			needles = append(needles, secret)
		}
		needles = append(needles, parts...)
		tpl = tpl[open+end+len("⟧"):]
	}
	if len(needles) == 0 {
		tb.Fatalf("%s: no secret of 12 or more bytes", name)
	}
	t.WriteString(tpl)
	w.WriteString(tpl)
	return t.String(), w.String(), rules, needles
}

// secretRule splits the @<rule>: a secret's template may start with from
// the template; rule is the line's, for a template without one.
func secretRule(tpl, rule string) (string, string) {
	if name, rest, ok := strings.Cut(strings.TrimPrefix(tpl, "@"), ":"); ok && strings.HasPrefix(tpl, "@") {
		return rest, name
	}
	return tpl, rule
}

// encodings wrap a generated secret whose template starts with their
// name and a colon: ⟦base64:…⟧ holds the standard base64 of the
// secret's text (\n, \r, \t and \\ first turned into the bytes they
// stand for, in text and JSON templates alike), ⟦url:…⟧ its URL query
// encoding (url.QueryEscape).
var encodings = map[string]func(string) string{
	"base64": func(s string) string { return base64.StdEncoding.EncodeToString([]byte(unescape(s))) },
	"url":    url.QueryEscape,
}

// encode applies the encoding a secret's template names, if any; the
// needles of an encoded secret are the encoded secret itself.
func encode(secret string, parts []string) (string, []string) {
	for name, enc := range encodings {
		if rest, ok := strings.CutPrefix(secret, name+":"); ok {
			return enc(rest), []string{enc(rest)}
		}
	}
	return secret, parts
}

// invisible are the invisible characters a secret's template may hold:
// {zwsp:N} is N zero-width spaces (U+200B), {zwj:N} zero-width joiners,
// {shy:N} soft hyphens, {bom:N} byte order marks (U+FEFF).
var invisible = map[string]string{"zwsp": "\u200b", "zwj": "\u200d", "shy": "\u00ad", "bom": "\ufeff"}

// generate expands the directives of one secret's template.
func generate(tb testing.TB, name, tpl string, rng *rand.Rand, jsonMode bool) (string, []string) {
	tb.Helper()
	var b strings.Builder
	var parts []string
	for {
		open := strings.IndexByte(tpl, '{')
		if open < 0 {
			break
		}
		end := strings.IndexByte(tpl[open:], '}')
		if end < 0 {
			tb.Fatalf("%s: { without }", name)
		}
		b.WriteString(tpl[:open])
		class, count, _ := strings.Cut(tpl[open+1:open+end], ":")
		n, err := strconv.Atoi(count)
		if err != nil {
			tb.Fatalf("%s: bad directive {%s}", name, tpl[open+1:open+end])
		}
		var piece []string
		switch class {
		case "pem", "pemq":
			sep := "\n"
			if jsonMode {
				sep = map[string]string{"pem": `\n`, "pemq": `\\n`}[class]
			}
			for range n {
				piece = append(piece, random(rng, classes["b64"], 64))
			}
			b.WriteString(strings.Join(piece, sep))
		case "zwsp", "zwj", "shy", "bom":
			b.WriteString(strings.Repeat(invisible[class], n))
		default:
			chars, ok := classes[class]
			if !ok {
				tb.Fatalf("%s: unknown class %q", name, class)
			}
			piece = []string{random(rng, chars, n)}
			b.WriteString(piece[0])
		}
		for _, p := range piece {
			if len(p) >= 12 {
				parts = append(parts, p)
			}
		}
		tpl = tpl[open+end+1:]
	}
	b.WriteString(tpl)
	return b.String(), parts
}

// random returns n bytes drawn from chars; at 16 or more, from a
// charset holding capitals, it begins with FAKE.
func random(rng *rand.Rand, chars string, n int) string {
	var b bytes.Buffer
	if n >= 16 && strings.Contains(chars, "K") && strings.Contains(chars, "F") {
		b.WriteString("FAKE")
	}
	for b.Len() < n {
		b.WriteByte(chars[rng.IntN(len(chars))])
	}
	return b.String()
}
