package vat_test

import (
	"strings"
	"testing"

	"github.com/sharevat/sharevat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestErrorsNeverQuoteAToken: a token pasted where a grant or share id
// belongs (Share.revoke, Admin.resetOwner) is answered notFound without
// quoting it, so its secret never comes back in an error (nor in the
// CLI's output, nor in a log line that records the error).
func TestErrorsNeverQuoteAToken(t *testing.T) {
	tv := MustServe(t, sharevat.Limits{}, nil)
	owner := tv.MustCreate(t, "quote")
	a := tv.MustRestore(t, owner)
	secret := owner[strings.LastIndex(owner, "_")+1:]

	err := a.Revoke(bg, sharevat.GrantID(owner))
	isCode(t, err, sharevat.ErrNotFound, "a token as grant id")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), secret)

	admin, err := tv.MustDial(t).RedeemAdmin(bg, tv.Admin)
	require.NoError(t, err)
	_, _, err = admin.ResetOwner(bg, sharevat.ShareID(owner))
	isCode(t, err, sharevat.ErrNotFound, "a token as share id")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), secret)

	err = a.Revoke(bg, "nosuchgrantnosuchgrant22")
	assert.Contains(t, err.Error(), "nosuchgrantnosuchgrant22", "a well-formed id is still named")
}
