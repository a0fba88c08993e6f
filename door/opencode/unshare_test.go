package opencode_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/capnweb"
)

// endSink is a subscription's sink as the share page holds one: it
// accepts pushes and reports the end's code on a channel.
type endSink struct{ ended chan string }

// Call implements capnweb.Target.
func (s *endSink) Call(_ context.Context, method string, args []capnweb.Value) capnweb.Answer {
	switch method {
	case "push":
		return capnweb.Returning(capnweb.Undefined, nil)
	case "end":
		code, _ := args[0].(string)
		s.ended <- code
		return capnweb.Returning(capnweb.Undefined, nil)
	}
	return capnweb.Returning(nil, &capnweb.Error{Type: "TypeError", Message: "'" + method + "' is not a function."})
}

// TestUnshareEndsTheLink: unsharing is immediate. Invariant: a live
// subscription of the link (what the share page holds, over /capnweb)
// is ended as revoked by DELETE …/api/share/<id>, the link no longer
// restores, GET …/data answers 404, and a create of the same session
// afterwards makes a new share with a new link.
func TestUnshareEndsTheLink(t *testing.T) {
	d := startOpen(t)
	sh := create(t, d.base, "ses_gone")
	require.Equal(t, http.StatusOK, syncRaw(t, d.base, sh, itSession).status)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := capnweb.Dial(ctx, strings.TrimSuffix(d.URL, "/rpc")+"/capnweb", nil, nil)
	require.NoError(t, err)
	defer c.Close()
	res, err := c.Main().Call(ctx, "restore", slug(sh))
	require.NoError(t, err)
	share, _ := res.(*capnweb.Object).Get("share")
	reader, err := share.(*capnweb.Stub).Call(ctx, "reader")
	require.NoError(t, err)
	sink := &endSink{ended: make(chan string, 1)}
	_, err = reader.(*capnweb.Stub).Call(ctx, "subscribe", 0, sink)
	require.NoError(t, err)

	r := call(t, "DELETE", d.base+"/api/share/"+sh.ID, map[string]string{"secret": sh.Secret})
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	select {
	case code := <-sink.ended:
		require.Equal(t, "revoked", code)
	case <-ctx.Done():
		t.Fatal("the subscription was not ended")
	}
	_, err = c.Main().Call(ctx, "restore", slug(sh))
	require.Error(t, err)
	status, _ := items(t, d, sh)
	require.Equal(t, http.StatusNotFound, status)

	again := create(t, d.base, "ses_gone")
	require.NotEqual(t, sh.ID, again.ID)
	require.NotEqual(t, sh.URL, again.URL)
}

// TestUnsharedPageIs404: the page of an unshared session is gone too.
// Invariant: GET and HEAD /share/<slug> answer the page (200) while the
// share lives, and 404 with the /data error, no-store, once it is
// unshared; so do a slug that never was and the share's secret (not a
// link); the page's assets are still served.
func TestUnsharedPageIs404(t *testing.T) {
	d := startOpen(t)
	sh := create(t, d.base, "ses_page_gone")
	require.Equal(t, http.StatusOK, syncRaw(t, d.base, sh, itSession).status)
	require.Equal(t, http.StatusOK, call(t, "GET", sh.URL, nil).status, "the live share's page")
	require.Equal(t, http.StatusOK, call(t, "HEAD", sh.URL, nil).status, "the live share's page, HEAD")

	r := call(t, "DELETE", d.base+"/api/share/"+sh.ID, map[string]string{"secret": sh.Secret})
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	for _, u := range []string{sh.URL, d.HTTP + "/share/svt1_never", d.HTTP + "/share/" + sh.Secret} {
		for _, method := range []string{"GET", "HEAD"} {
			r = call(t, method, u, nil)
			require.Equal(t, http.StatusNotFound, r.status, "%s after unshare", method)
			require.Equal(t, "no-store", r.header.Get("Cache-Control"))
		}
	}
	r = call(t, "GET", sh.URL, nil)
	require.Contains(t, string(r.body), "no such share")
	require.Equal(t, http.StatusOK, call(t, "GET", d.HTTP+"/share/app.js", nil).status, "an asset")
}
