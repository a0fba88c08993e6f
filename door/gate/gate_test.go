package gate_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/door/gate"
	"github.com/sharevat/sharevat/internal/vattest"
	"github.com/sharevat/sharevat/rpc"
)

const unauthorized = "unauthorized: invalid or expired token"

// Every failure of a token answers the same 401, with the door's
// challenge, and the door is never reached.
func TestEveryBadTokenLooksTheSame(t *testing.T) {
	f := startGate(t, vattest.Options{}, gate.Options{Door: "test", Challenge: `Bearer realm="sharevat"`}, nil)
	owner := f.vat.MustCreate(t, "s")
	sh := f.vat.MustRestore(t, owner)
	reader, err := sh.Grant(ctxT(t), sharevat.ScopeRead, 0, "r")
	require.NoError(t, err)
	require.NoError(t, sh.Revoke(ctxT(t), reader.GrantID))
	for name, tok := range map[string]string{
		"none": "", "junk": "garbage", "wrong secret": vattest.WrongSecret(owner),
		"revoked": reader.Token, "admin token as a share's": f.vat.Admin,
	} {
		status, text, h := f.post(t, tok, "/", `{"x":1}`)
		require.Equal(t, http.StatusUnauthorized, status, name)
		require.Equal(t, unauthorized, text, name)
		require.Equal(t, `Bearer realm="sharevat"`, h.Get("WWW-Authenticate"), name)
	}
	require.Empty(t, f.door, "the door was reached with a bad token")
	status, text, _ := f.post(t, owner, "/", `{"x":1}`)
	require.Equal(t, http.StatusOK, status, text)
	p := <-f.door
	require.Equal(t, sharevat.ScopeOwner, p.scope)
	require.True(t, p.share, "the Pass holds the redeemed Share")
}

// A bad token is refused before a byte of its body is read: the 401
// arrives while the client still withholds the body it declared.
func TestTokenBeforeBody(t *testing.T) {
	f := startGate(t, vattest.Options{}, gate.Options{Door: "test"}, nil)
	pr, pw := io.Pipe()
	defer pw.Close()
	req, err := http.NewRequestWithContext(ctxT(t), http.MethodPost, f.url+"/", pr)
	require.NoError(t, err)
	req.ContentLength = 1 << 20
	req.Header.Set("Authorization", "Bearer garbage")
	res, err := http.DefaultClient.Do(req) // the body is never written
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusUnauthorized, res.StatusCode)
}

// The size limit comes first: an over-long body is 413 whatever its
// token.
func TestSizeLimitFirst(t *testing.T) {
	f := startGate(t, vattest.Options{}, gate.Options{Door: "test", MaxBody: 16}, nil)
	status, text, _ := f.post(t, "garbage", "/", strings.Repeat("y", 17))
	require.Equal(t, http.StatusRequestEntityTooLarge, status)
	require.True(t, strings.HasPrefix(text, "tooLarge: "), text)
	require.Contains(t, text, "16 bytes")
}

// A body that declares no length is still bounded by MaxBody.
func TestChunkedBodyBounded(t *testing.T) {
	f := startGate(t, vattest.Options{}, gate.Options{Door: "test", MaxBody: 16}, nil)
	owner := f.vat.MustCreate(t, "s")
	req, err := http.NewRequestWithContext(ctxT(t), http.MethodPost, f.url+"/", io.NopCloser(strings.NewReader(strings.Repeat("y", 64))))
	require.NoError(t, err)
	req.ContentLength = -1
	req.Header.Set("Authorization", "Bearer "+owner)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusRequestEntityTooLarge, res.StatusCode)
	require.Empty(t, f.door)
}

// The body is charged to the budget before it is read (refused 503 when
// it cannot fit) and given back when the request ends.
func TestBudgetChargedAndGivenBack(t *testing.T) {
	pool := rpc.NewMemoryPool(1000)
	hold := make(chan struct{})
	f := startGate(t, vattest.Options{}, gate.Options{Door: "test", Budget: pool, Expansion: 2}, hold)
	owner := f.vat.MustCreate(t, "s")
	status, text, _ := f.post(t, owner, "/", strings.Repeat("y", 501)) // 1002 bytes
	require.Equal(t, http.StatusServiceUnavailable, status)
	require.Equal(t, "unavailable: the server's memory budget is full; retry later", text)
	require.Empty(t, f.door)

	done := make(chan int)
	go func() { s, _, _ := f.post(t, owner, "/", strings.Repeat("y", 400)); done <- s }()
	<-f.door
	require.Equal(t, int64(800), pool.Used(), "the body is charged while the door serves it")
	close(hold)
	require.Equal(t, http.StatusOK, <-done)
	require.Equal(t, int64(0), pool.Used(), "the charge is given back")
}

// One caller may hold no more than its share of the budget, save one
// request of any size when it holds nothing; another caller is not held
// up by it.
func TestCallerShare(t *testing.T) {
	pool := rpc.NewMemoryPool(1 << 20)
	hold := make(chan struct{})
	f := startGate(t, vattest.Options{}, gate.Options{Door: "test", Budget: pool, Expansion: 1, CallerShare: 100}, hold)
	a, b := f.vat.MustCreate(t, "a"), f.vat.MustCreate(t, "b")
	done := make(chan int, 2)
	go func() { s, _, _ := f.post(t, a, "/", strings.Repeat("y", 80)); done <- s }()
	<-f.door
	status, _, _ := f.post(t, a, "/", strings.Repeat("y", 80))
	require.Equal(t, http.StatusServiceUnavailable, status, "a second body past the caller's share")
	go func() { s, _, _ := f.post(t, b, "/", strings.Repeat("y", 80)); done <- s }()
	<-f.door
	close(hold)
	require.Equal(t, http.StatusOK, <-done)
	require.Equal(t, http.StatusOK, <-done)

	status, _, _ = f.post(t, a, "/", strings.Repeat("y", 300))
	require.Equal(t, http.StatusOK, status, "a body over the share, from a caller that holds nothing")
	<-f.door
}

// A store that cannot check the token answers 503, not 401: the token
// may be valid.
func TestStoreDownIsUnavailable(t *testing.T) {
	ds := &vattest.DownStore{}
	f := startGate(t, vattest.Options{Wrap: ds.Wrap}, gate.Options{Door: "test"}, nil)
	owner := f.vat.MustCreate(t, "s")
	ds.Down()
	status, text, _ := f.post(t, owner, "/", "{}")
	require.Equal(t, http.StatusServiceUnavailable, status)
	require.True(t, strings.HasPrefix(text, "unavailable: "), text)
	require.NotContains(t, text, owner)
}

// A door may carry its token in a path segment; Anonymous lets a request
// without one through with only the Vault, yet still refuses a bad one.
func TestPathTokenAndAnonymous(t *testing.T) {
	f := startGate(t, vattest.Options{}, gate.Options{Door: "test", Token: gate.PathSegment("/t/"), Anonymous: true}, nil)
	owner := f.vat.MustCreate(t, "s")
	status, _, _ := f.post(t, "", "/t/"+owner+"/x", "{}")
	require.Equal(t, http.StatusOK, status)
	require.True(t, (<-f.door).share)
	status, _, _ = f.post(t, "", "/other", "{}")
	require.Equal(t, http.StatusOK, status)
	p := <-f.door
	require.False(t, p.share)
	require.True(t, p.vaultCap)
	status, text, _ := f.post(t, "", "/t/garbage/x", "{}")
	require.Equal(t, http.StatusUnauthorized, status)
	require.Equal(t, unauthorized, text)
}

// An admin door redeems the admin token for an Admin.
func TestAdminKind(t *testing.T) {
	f := startGate(t, vattest.Options{}, gate.Options{Door: "test", Kind: gate.AdminToken}, nil)
	status, _, _ := f.post(t, f.vat.Admin, "/", "{}")
	require.Equal(t, http.StatusOK, status)
	require.True(t, (<-f.door).admin)
	status, _, _ = f.post(t, f.vat.MustCreate(t, "s"), "/", "{}")
	require.Equal(t, http.StatusUnauthorized, status)
}

// A body withheld past BodyTimeout answers 408.
func TestBodyTimeout(t *testing.T) {
	f := startGate(t, vattest.Options{}, gate.Options{Door: "test", BodyTimeout: 50 * time.Millisecond}, nil)
	owner := f.vat.MustCreate(t, "s")
	pr, pw := io.Pipe()
	defer pw.Close()
	req, err := http.NewRequestWithContext(ctxT(t), http.MethodPost, f.url+"/", pr)
	require.NoError(t, err)
	req.ContentLength = 10
	req.Header.Set("Authorization", "Bearer "+owner)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusRequestTimeout, res.StatusCode)
	require.Empty(t, f.door)
}
