package capnweb_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/internal/vattest"
)

// TestRestoreDuringStoreOutage: over Cap'n Web too, a valid token's
// restore while the store is down answers "unavailable: cannot check the
// token now …", not unauthorized; once the store is back it restores.
func TestRestoreDuringStoreOutage(t *testing.T) {
	ds := &vattest.DownStore{}
	e := start(t, vattest.Options{Wrap: ds.Wrap})
	good := e.srv.MustCreate(t, "t")
	vault := e.dial(t)
	ds.Down()
	_, err := call(vault, "restore", good)
	code, msg := codeOf(t, err)
	assert.Equal(t, "unavailable", code)
	assert.Equal(t, sharevat.ErrCannotCheckToken.Error(), msg)
	ds.Up()
	e.restore(t, good)
}
