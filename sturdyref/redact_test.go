package sturdyref_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/sharevat/sharevat/sturdyref"
)

func TestRedactedForms(t *testing.T) {
	tok := mustRandomToken(t)
	want := "svt1_" + string(tok.GrantID) + "_…"
	if got := tok.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got := fmt.Sprintf("%v", tok); got != want {
		t.Errorf("%%v = %q, want %q", got, want)
	}
	if got, want := fmt.Sprintf("%#v", tok), tok.GoString(); got != want {
		t.Errorf("%%#v = %q, want GoString %q", got, want)
	}
	if got, _ := tok.MarshalText(); string(got) != want {
		t.Errorf("MarshalText() = %q, want %q", got, want)
	}
	if got := tok.LogValue().String(); got != want {
		t.Errorf("LogValue() = %q, want %q", got, want)
	}
}

func TestNoVerbLeaks(t *testing.T) {
	tok := mustRandomToken(t)
	// Not %p: fmt reports a bad %p by dumping the raw value without
	// calling any method, and vet flags %p on a non-pointer anyway.
	verbs := []string{"%v", "%s", "%+v", "%#v", "%q", "%#q", "%x", "%X", "%d", "%b", "%o", "%c", "%U", "%e", "%t", "%T", "%80s", "%-80v"}
	for _, verb := range verbs {
		for _, arg := range []any{tok, &tok, []sturdyref.Token{tok}, struct{ T sturdyref.Token }{tok}, map[string]sturdyref.Token{"k": tok}} {
			checkNoSecret(t, tok, verb, fmt.Sprintf(verb, arg))
		}
	}
	checkNoSecret(t, tok, "Sprint", fmt.Sprint(tok, &tok))
	checkNoSecret(t, tok, "Errorf %w-less", fmt.Errorf("redeem %v failed", tok).Error())
}

func TestJSONDoesNotLeak(t *testing.T) {
	tok := mustRandomToken(t)
	for _, v := range []any{tok, &tok, struct{ T sturdyref.Token }{tok}, map[string]any{"t": &tok}, map[sturdyref.Token]int{tok: 1}} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("json.Marshal(%T): %v", v, err)
		}
		checkNoSecret(t, tok, fmt.Sprintf("json %T", v), string(b))
	}
}

func TestSlogDoesNotLeak(t *testing.T) {
	tok := mustRandomToken(t)
	var buf bytes.Buffer
	for _, h := range []slog.Handler{slog.NewJSONHandler(&buf, nil), slog.NewTextHandler(&buf, nil)} {
		log := slog.New(h)
		log.Info("redeem", "token", tok, "ptr", &tok, slog.Any("any", tok), slog.Group("g", "t", tok))
		log.Info("struct", "s", struct{ T sturdyref.Token }{tok})
	}
	out := buf.String()
	if !strings.Contains(out, string(tok.GrantID)) {
		t.Errorf("log output %q lacks the grant id", out)
	}
	checkNoSecret(t, tok, "slog", out)
}

// checkNoSecret fails if out holds a piece of the secret: as base64url
// text, as hex or as the decimal bytes fmt prints for a byte array.
func checkNoSecret(t *testing.T, tok sturdyref.Token, what, out string) {
	t.Helper()
	sec := secretText(tok)
	raw, _ := base64.RawURLEncoding.DecodeString(sec)
	needles := []string{hex.EncodeToString(raw[:4]), strings.ToUpper(hex.EncodeToString(raw[:4])), strings.Trim(fmt.Sprint(raw[:4]), "[]")}
	for i := 0; i+8 <= len(sec); i++ {
		needles = append(needles, sec[i:i+8])
	}
	for _, n := range needles {
		if strings.Contains(out, n) {
			t.Errorf("%s: output %q contains part of the secret (%q)", what, out, n)
			return
		}
	}
}

func TestRedactTextKeepsOnlyThePublicPart(t *testing.T) {
	a, b := mustRandomToken(t), mustRandomToken(t)
	msg := "not_found: no share " + a.Reveal() + " or (" + b.Reveal() + ")"
	got := sturdyref.RedactText(msg)
	want := "not_found: no share " + a.String() + " or (" + b.String() + ")"
	if got != want {
		t.Errorf("RedactText = %q, want %q", got, want)
	}
	if plain := "svt1_short_and_not_a_token"; sturdyref.RedactText(plain) != plain {
		t.Errorf("RedactText changed %q", plain)
	}
}
