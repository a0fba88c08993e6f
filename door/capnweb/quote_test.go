package capnweb_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/vattest"
)

// TestUnknownMethodHidesToken: a token, or its secret alone, called as a
// method answers capnweb's TypeError without any part of the secret
// (the bare secret was once quoted whole); a short name is quoted.
func TestUnknownMethodHidesToken(t *testing.T) {
	e := start(t, vattest.Options{})
	token := e.srv.MustCreate(t, "hide")
	secret := token[30:]
	share := e.restore(t, token)
	for _, method := range []string{token, secret, secret[:34]} {
		_, err := call(share, method)
		require.Error(t, err)
		for i := 0; i+6 <= len(secret); i++ {
			require.NotContains(t, err.Error(), secret[i:i+6], "a part of the secret in %q", err)
		}
		assert.Contains(t, err.Error(), "bytes not shown>' is not a function.")
	}
	_, err := call(share, "frobnicate")
	assert.True(t, strings.HasSuffix(err.Error(), "'frobnicate' is not a function."), "%v", err)
}
