package main_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestMalformedTokenIsCaughtBeforeDialling: a token that is not a
// token's text (truncated, with a stray character) exits 3 with a line
// that says it is malformed and never quotes it, before anything is
// dialled: the URL points at a port nothing listens on, so a dial would
// exit 1. Before, read and create dialled and failed there.
func TestMalformedTokenIsCaughtBeforeDialling(t *testing.T) {
	good := someToken(t)
	for name, tok := range map[string]string{
		"truncated":  good[:len(good)-5],
		"stray char": good[:20] + "!" + good[21:],
	} {
		for _, cmd := range []string{"read", "create", "list", "grants"} {
			t.Run(name+"/"+cmd, func(t *testing.T) {
				env := []string{"SHAREVAT_URL=ws://127.0.0.1:1/rpc", "SHAREVAT_TOKEN=" + tok}
				_, stderr, code := cliIn(t, "", env, cmd)
				assert.Equal(t, 3, code, stderr)
				line := oneLineErr(t, stderr)
				assert.Contains(t, line, "malformed")
				assert.NotContains(t, stderr, tok[10:30], "the token leaked")
			})
		}
	}
}
