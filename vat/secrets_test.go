package vat_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/internal/vattest"
)

// TestNoSecretLeaks runs the delegation scenario (mint, redeem, fail to
// redeem, revoke, bump) and then looks for every token's secret in the
// server log, the audit log, every error the clients saw, and every byte
// of the data directory. Invariant: no secret appears anywhere; grant ids
// do appear in the audit log.
func TestNoSecretLeaks(t *testing.T) {
	tv := MustServe(t, sharevat.Limits{}, nil)
	owner := tv.MustCreate(t, "secrets")
	a := tv.MustRestore(t, owner)
	tokens := []string{tv.Admin, owner}
	var errs []string
	note := func(err error) {
		if err != nil {
			errs = append(errs, err.Error(), fmt.Sprintf("%+v %#v", err, err))
		}
	}
	cm := mustGrant(t, a, sharevat.ScopeRead|sharevat.ScopeDelegate, time.Hour, "C")
	c := tv.MustRestore(t, cm.Token)
	dm := mustGrant(t, c, sharevat.ScopeRead, 0, "D")
	tokens = append(tokens, cm.Token, dm.Token)
	_, err := c.Grant(bg, sharevat.ScopeOwner, 0, "")
	note(err)
	require.NoError(t, a.Revoke(bg, cm.GrantID))
	_, _, err = c.Fetch(bg)
	note(err)
	for _, tok := range tokens {
		_, err := tv.MustDial(t).Redeem(bg, tok)
		note(err)
		_, err = tv.MustDial(t).Redeem(bg, vattest.WrongSecret(tok))
		note(err)
	}
	nm, _, err := a.BumpEpoch(bg)
	require.NoError(t, err)
	tokens = append(tokens, nm.Token)
	_, err = tv.MustDial(t).Redeem(bg, owner)
	note(err)

	tv.Vat.SyncAudit()
	audit, err := tv.Store.AuditLog(bg, "", 0, 10000)
	require.NoError(t, err)
	auditText := fmt.Sprintf("%+v", audit)
	assert.Contains(t, auditText, string(cm.GrantID), "the audit log names grants by id")
	for _, kind := range []sharevat.AuditAction{sharevat.AuditMint, sharevat.AuditRedeem, sharevat.AuditRevoke, sharevat.AuditBump} {
		assert.Contains(t, auditText, string(kind), "the audit log records %s", kind)
	}
	places := map[string]string{"server log": tv.Log.String(), "audit log": auditText, "errors": strings.Join(errs, "\n")}
	for _, tok := range tokens {
		secret := tok[len(tok)-43:]
		for where, text := range places {
			assert.NotContains(t, text, secret, "a secret in the %s", where)
		}
		raw, err := base64.RawURLEncoding.DecodeString(secret)
		require.NoError(t, err)
		assertNotInDir(t, tv.Dir, []byte(secret))
		assertNotInDir(t, tv.Dir, raw)
	}
}

// assertNotInDir fails if any file under dir holds secret.
func assertNotInDir(t *testing.T, dir string, secret []byte) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		assert.False(t, bytes.Contains(b, secret), "a secret in %s", path)
		return nil
	})
	require.NoError(t, err)
}
