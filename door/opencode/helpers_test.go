package opencode_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/servertest"
	"github.com/sharevat/sharevat/server"
)

// door is a running in-process server and the base opencode is
// configured with (enterprise.url).
type door struct {
	*servertest.Server
	base string
}

// startOpen starts a server with --opencode-open: creates need no token.
func startOpen(t *testing.T) *door {
	t.Helper()
	s := servertest.Start(t, servertest.Options{Config: func(c *server.Config) { c.OpencodeOpen = true }})
	return &door{Server: s, base: s.HTTP}
}

// reply is one HTTP answer.
type reply struct {
	status int
	header http.Header
	body   []byte
}

func (r reply) json(t *testing.T, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal(r.body, v), "body %s", r.body)
}

// call sends method url with body (nil: none) as opencode does.
func call(t *testing.T, method, url string, body any) reply {
	t.Helper()
	return do(t, newReq(t, method, url, body))
}

// newReq builds a request with a JSON body (nil: none; a string or
// []byte: as it is).
func newReq(t *testing.T, method, url string, body any) *http.Request {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewReader([]byte(b))
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		require.NoError(t, err)
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, url, rd)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	return req
}

// do sends req and reads the whole answer.
func do(t *testing.T, req *http.Request) reply {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return reply{status: res.StatusCode, header: res.Header, body: b}
}

// share is a create's answer.
type share struct {
	ID     string `json:"id"`
	URL    string `json:"url"`
	Secret string `json:"secret"`
}

// create creates a share for session through base and requires 200.
func create(t *testing.T, base, session string) share {
	t.Helper()
	r := call(t, "POST", base+"/api/share", map[string]string{"sessionID": session})
	require.Equal(t, http.StatusOK, r.status, "create: %s", r.body)
	var s share
	r.json(t, &s)
	return s
}

// syncRaw posts a sync whose data array is the raw JSON items.
func syncRaw(t *testing.T, base string, s share, items string) reply {
	t.Helper()
	body := `{"secret":` + quote(s.Secret) + `,"data":[` + items + `]}`
	return call(t, "POST", base+"/api/share/"+s.ID+"/sync", body)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// slug is the last path segment of a share's url.
func slug(s share) string {
	i := bytes.LastIndexByte([]byte(s.URL), '/')
	return s.URL[i+1:]
}

// items reads GET /api/share/<slug>/data from the origin.
func items(t *testing.T, d *door, s share) (int, []item) {
	t.Helper()
	r := call(t, "GET", d.HTTP+"/api/share/"+slug(s)+"/data", nil)
	if r.status != http.StatusOK {
		return r.status, nil
	}
	var out []item
	r.json(t, &out)
	return r.status, out
}

type item struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// startOn starts a server on the data directory dir.
func startOn(t *testing.T, dir string) *servertest.Server {
	t.Helper()
	return servertest.Start(t, servertest.Options{Config: func(c *server.Config) { c.Data = dir }})
}

// startOpenOn starts a server with --opencode-open on the data
// directory dir.
func startOpenOn(t *testing.T, dir string) *servertest.Server {
	t.Helper()
	return servertest.Start(t, servertest.Options{Config: func(c *server.Config) { c.Data = dir; c.OpencodeOpen = true }})
}

// closeServer stops s before the test ends (its cleanup then does
// nothing).
func closeServer(t *testing.T, s *servertest.Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, s.Close(ctx))
}

// countShares counts the live shares, listed with the admin token.
func countShares(t *testing.T, s *servertest.Server) int {
	t.Helper()
	ctx := context.Background()
	conn, err := client.Dial(ctx, s.URL, nil)
	require.NoError(t, err)
	defer conn.Close()
	adm, err := conn.RedeemAdmin(ctx, s.Admin)
	require.NoError(t, err)
	defer adm.Release()
	n := 0
	for _, err := range adm.ListAll(ctx, sharevat.ListFilter{}) {
		require.NoError(t, err)
		n++
	}
	return n
}

// requireNoSecretIn fails if any file under dir holds one of the
// tokens, or the secret half of one.
func requireNoSecretIn(t *testing.T, dir string, tokens ...string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, tok := range tokens {
			secret := tok[max(0, len(tok)-43):] // a token ends with its 43-character secret
			require.False(t, bytes.Contains(b, []byte(secret)), "%s holds a token's secret", path)
		}
		return nil
	})
	require.NoError(t, err)
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
