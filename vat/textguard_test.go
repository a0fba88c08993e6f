package vat_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
)

// A GitHub token of the right shape, plainly fake, assembled so the
// source holds no token-shaped string.
var fakeTitleToken = "ghp" + "_FAKEfake0123456789FAKEfake0123456789"

// TestTitlesAndLabelsAreGuarded: a secret in a share's title (create,
// update, fork) or a grant's label is stored redacted under redact, is
// refused invalid under reject with a message naming the field and the
// rule, never the secret, and is stored as sent under off; no planted
// secret reaches the data directory or the server's log.
func TestTitlesAndLabelsAreGuarded(t *testing.T) {
	tv := MustServe(t, sharevat.Limits{}, nil)
	title := "deploy with " + fakeTitleToken
	want := "deploy with [REDACTED:github-pat]"
	admin, err := tv.MustDial(t).RedeemAdmin(bg, tv.Admin)
	require.NoError(t, err)
	defer admin.Release()
	sh, _, err := admin.CreateShare(bg, sharevat.MetaPatch{Title: &title})
	require.NoError(t, err)
	defer sh.Release()
	got, err := sh.Update(bg, sharevat.MetaPatch{Title: &title})
	require.NoError(t, err)
	assert.Equal(t, want, got.Meta.Title, "update under redact")
	fork, _, err := sh.Fork(bg, 0, sharevat.MetaPatch{Title: &title})
	require.NoError(t, err)
	fork.Release()
	_, err = sh.Grant(bg, sharevat.ScopeRead, time.Hour, "for ci "+fakeTitleToken)
	require.NoError(t, err)
	grants, err := sh.Grants(bg)
	require.NoError(t, err)
	labels := map[string]bool{}
	for _, g := range grants {
		labels[g.Label] = true
	}
	assert.True(t, labels["for ci [REDACTED:github-pat]"], "label under redact: %v", labels)

	setPrivacy(t, sh, sharevat.PrivacyReject)
	_, err = sh.Update(bg, sharevat.MetaPatch{Title: &title})
	assert.Equal(t, sharevat.EInvalid, sharevat.ErrorCode(err), "update under reject: %v", err)
	assert.ErrorContains(t, err, "title holds a secret-shaped string (github-pat)")
	_, err = sh.Grant(bg, sharevat.ScopeRead, time.Hour, "for ci "+fakeTitleToken)
	assert.Equal(t, sharevat.EInvalid, sharevat.ErrorCode(err), "label under reject: %v", err)
	assert.ErrorContains(t, err, "label holds a secret-shaped string (github-pat)")
	assertNoNeedle(t, tv, []corpusOp{{needles: []string{fakeTitleToken}}}, "")

	setPrivacy(t, sh, sharevat.PrivacyOff)
	got, err = sh.Update(bg, sharevat.MetaPatch{Title: &title})
	require.NoError(t, err)
	assert.Equal(t, title, got.Meta.Title, "update under off")
}
