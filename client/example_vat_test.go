package client_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/vattest"
)

// exampleVat is where every example starts: a whole vat running
// in-process on loopback, as `sharevat serve` would be, and one share on
// it whose log holds three ops.
type exampleVat struct {
	URL   string // the vat's ws:// URL
	Token string // the share's owner token
	Dir   string // a scratch directory, removed by Stop
	stop  func()
}

// startVat starts the vat and creates the share. It is plumbing, not
// part of what the examples show.
func startVat() *exampleVat {
	srv, stop, err := vattest.Serve(vattest.Options{})
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	token, err := createShare(ctx, srv.URL, srv.Admin)
	if err != nil {
		stop()
		log.Fatal(err)
	}
	return &exampleVat{URL: srv.URL, Token: token, Dir: srv.Dir, stop: stop}
}

// Stop stops the vat and removes its directory.
func (v *exampleVat) Stop() { v.stop() }

// exampleOps are the ops the share starts with.
var exampleOps = []sharevat.Op{
	{OpID: "s1", Kind: sharevat.KindSession, Key: "ses_1", Body: []byte(`{"title":"fix the login bug"}`)},
	{OpID: "m1", Kind: sharevat.KindMessage, Key: "msg_1", Body: []byte(`{"role":"user","text":"the login form fails"}`)},
	{OpID: "e1", Kind: sharevat.KindEvent, Body: []byte(`{"type":"session.idle"}`)},
}

// createShare creates a share titled "fix the login bug" holding
// exampleOps, and returns its owner token.
func createShare(ctx context.Context, url, adminToken string) (string, error) {
	conn, err := client.Dial(ctx, url, nil)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	admin, err := conn.RedeemAdmin(ctx, adminToken)
	if err != nil {
		return "", err
	}
	title := "fix the login bug"
	share, owner, err := admin.CreateShare(ctx, sharevat.MetaPatch{Title: &title})
	if err != nil {
		return "", err
	}
	app, err := share.Appender(ctx)
	if err != nil {
		return "", err
	}
	ack, err := app.Append(ctx, &sharevat.Batch{BatchID: "b1", Epoch: share.Access.Epoch, Ops: exampleOps})
	if err == nil && ack.Applied != len(exampleOps) {
		err = fmt.Errorf("applied %d of %d ops: %+v", ack.Applied, len(exampleOps), ack.Results)
	}
	return owner.Token, err
}
