package hostile_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/hostile"
	"github.com/sharevat/sharevat/internal/proctest"
)

var plainBin = proctest.Once{PkgDir: filepath.Join("..", "..", "cmd", "sharevat")}

// TestMain removes the binary the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	plainBin.Cleanup()
	os.Exit(code)
}

// budgetMiB is the vat's --memory-budget in the opencode door's attack.
const budgetMiB = 512

// junk is a well-formed token no vat minted.
const junk = "svt1_aaaaaaaaaaaaaaaaaaaaaaaa_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

// TestHostileOpencodeDoor attacks the opencode door of a real `sharevat
// serve` (built without the race detector, --memory-budget 512MiB), in
// both modes (--opencode-open, and a creation token), for 15 s each,
// with at once:
//
//   - 16 clients syncing 5 MiB (10 parts of 512 KiB, each newer than the
//     last) with a valid secret of a share of their own;
//   - 16 clients syncing 5 MiB with a junk secret to that share's id;
//   - 8 clients creating with a junk creation token in the path and a
//     5 MiB body; 8 deleting with a junk secret and a 5 MiB body;
//
// while a healthy opencode user syncs one small item to its own share
// every 50 ms. Invariants: the vat's peak VmRSS stays under the budget
// (271–389 MiB in 6 runs, baseline 26 MiB; 623 and 655 MiB before the
// door redeemed the token and charged the budget before reading a
// body); every sync
// of the healthy user succeeds (at least 3: the machine is shared); the vat is alive after.
func TestHostileOpencodeDoor(t *testing.T) {
	if testing.Short() {
		t.Skip("the attack runs 2 × 15 s")
	}
	bin := plainBin.Binary(t)
	for _, mode := range []string{"open", "token"} {
		t.Run(mode, func(t *testing.T) { attackDoor(t, bin, mode == "open") })
	}
}

func attackDoor(t *testing.T, bin string, open bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	flags := []string{"--memory-budget", "512MiB"}
	if open {
		flags = append(flags, "--opencode-open")
	}
	srv, err := hostile.StartServe(bin, dir, flags...)
	require.NoError(t, err)
	t.Cleanup(srv.Kill)
	origin := hostile.OpencodeBase(srv.URL)
	base := origin
	if !open {
		base = origin + "/opencode/" + mintCreator(t, origin, dir)
	}
	user, err := hostile.OpencodeCreate(ctx, base, "ses_user")
	require.NoError(t, err)
	mine, err := hostile.OpencodeCreate(ctx, base, "ses_attacker")
	require.NoError(t, err)

	baseline, err := hostile.ReadRSS(srv.Pid())
	require.NoError(t, err)
	rss := hostile.SampleRSS(srv.Pid(), 20*time.Millisecond)
	u := hostile.StartOpencodeUser(ctx, base, user)
	reports := flood(ctx, origin, base, mine, 15*time.Second)
	ok, bad, last := u.Stop()
	peak := rss.Stop()
	for _, r := range reports {
		t.Log(r)
	}
	t.Logf("baseline %s, peak %s (budget %d MiB); healthy user: %d syncs, %d failed (%s)", hostile.MiB(baseline), hostile.MiB(peak), budgetMiB, ok, bad, last)
	require.NoError(t, rss.Err(), "the vat exited: %s", srv.Log())
	require.LessOrEqual(t, peak, int64(budgetMiB)<<20, "peak VmRSS over the budget")
	require.Zero(t, bad, "a healthy user's sync failed: %s", last)
	require.GreaterOrEqual(t, ok, int64(3))
	_, err = hostile.OpencodeCreate(ctx, base, "ses_after")
	require.NoError(t, err, "the vat answers after the attack")
}

// flood runs every vector at once for d and returns their reports.
func flood(ctx context.Context, origin, base string, mine hostile.OpencodeShare, d time.Duration) []*hostile.Report {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	const items, itemBytes = 10, 512 << 10
	syncURL := base + "/api/share/" + mine.ID + "/sync"
	vectors := []func() *hostile.Report{
		func() *hostile.Report {
			return hostile.OpencodeFlood(ctx, "valid-secret syncs", http.MethodPost, syncURL, 16,
				func(n int64) []byte { return hostile.OpencodeSyncBody(mine.Secret, items, itemBytes, n) })
		},
		func() *hostile.Report {
			return hostile.OpencodeFlood(ctx, "junk-secret syncs", http.MethodPost, syncURL, 16,
				func(n int64) []byte { return hostile.OpencodeSyncBody(junk, items, itemBytes, n) })
		},
		func() *hostile.Report {
			return hostile.OpencodeFlood(ctx, "junk-token creates", http.MethodPost, origin+"/opencode/"+junk+"/api/share", 8,
				func(n int64) []byte { return hostile.OpencodeSyncBody(junk, items, itemBytes, n) })
		},
		func() *hostile.Report {
			return hostile.OpencodeFlood(ctx, "junk-secret deletes", http.MethodDelete, base+"/api/share/"+mine.ID, 8,
				func(n int64) []byte { return hostile.OpencodeSyncBody(junk, items, itemBytes, n) })
		},
	}
	out := make([]*hostile.Report, len(vectors))
	var wg sync.WaitGroup
	for i, v := range vectors {
		wg.Go(func() { out[i] = v() })
	}
	wg.Wait()
	return out
}

// mintCreator mints a creation token with the vat's admin token.
func mintCreator(t *testing.T, origin, dir string) string {
	t.Helper()
	admin, err := os.ReadFile(filepath.Join(dir, "admin.token"))
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, origin+"/opencode-tokens", strings.NewReader(`{"name":"hostile"}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(admin)))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	var m struct{ Token string }
	require.NoError(t, jsonDecode(res, &m))
	return m.Token
}

func jsonDecode(res *http.Response, v any) error { return json.NewDecoder(res.Body).Decode(v) }
