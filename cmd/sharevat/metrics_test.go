package main_test

import (
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/vattest"
)

// TestMetrics: after a create, an append, a grant and a failed redeem,
// /metrics reports them in Prometheus format, and holds no token or secret.
func TestMetrics(t *testing.T) {
	srv := startServer(t, t.TempDir())
	env := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_STATE=" + t.TempDir()}
	out, stderr, code := cli(t, "", append(env, "SHAREVAT_TOKEN_FILE="+filepath.Join(srv.Data, "admin.token")), "create")
	require.Equal(t, 0, code, stderr)
	owner := firstLine(out)
	env = append(env, "SHAREVAT_TOKEN="+owner)
	_, stderr, code = cli(t, `{"op_id":"a","kind":"event","body":{}}`+"\n"+`{"op_id":"b","kind":"event","depends_on":["never-sent"],"body":{}}`+"\n", env, "append")
	require.Equal(t, 4, code, stderr)
	out, stderr, code = cli(t, "", env, "grant", "--scope", "read")
	require.Equal(t, 0, code, stderr)
	reader := firstLine(out)
	_, _, code = cli(t, "", append(env, "SHAREVAT_TOKEN="+vattest.WrongSecret(owner)), "read")
	require.Equal(t, 3, code)

	body := fetchMetrics(t, srv)
	for _, want := range []string{
		`sharevat_redeems_total{result="ok"}`,
		`sharevat_redeems_total{result="unauthorized"} 1`,
		`sharevat_ops_total{status="applied"} 1`,
		`sharevat_ops_total{status="rejected"} 1`,
		`sharevat_appends_total 1`,
		"sharevat_commit_duration_seconds_bucket",
		"sharevat_commit_ops_bucket",
		"sharevat_live_connections",
		"sharevat_live_capabilities",
		"sharevat_store_bytes",
		"go_goroutines",
	} {
		assert.Contains(t, body, want)
	}
	for _, tok := range []string{owner, reader} {
		assert.NotContains(t, body, tok[len(tok)-43:], "a secret in /metrics")
	}
	assert.NotContains(t, body, "svt1_")
	assert.Contains(t, body, buildInfoLine(t), "the build info carries what `sharevat version` prints")
}

// buildInfoLine is the sharevat_build_info sample the binary's metrics
// should hold, from what its `version` prints.
func buildInfoLine(t *testing.T) string {
	t.Helper()
	out, err := exec.Command(binary, "version").Output()
	require.NoError(t, err)
	var ver, commit, goVersion, platform string
	_, err = fmt.Sscanf(string(out), "sharevat %s\ncommit %s\n%s %s\n", &ver, &commit, &goVersion, &platform)
	require.NoError(t, err, out)
	return fmt.Sprintf(`sharevat_build_info{commit=%q,goversion=%q,version=%q} 1`, commit, goVersion, ver)
}

func fetchMetrics(t *testing.T, srv *server) string {
	t.Helper()
	url := "http" + strings.TrimSuffix(strings.TrimPrefix(srv.URL, "ws"), "/rpc") + "/metrics"
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}
