package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
)

// Follow a share with Tail: the backlog, then every new op, one at a
// time, each exactly once, reconnecting and redeeming again whenever the
// connection is lost. A real consumer runs until its ctx ends; this one
// stops once it has seen the backlog.
func ExampleTail() {
	vat := startVat()
	defer vat.Stop()

	r := client.NewRedeemer(vat.URL, vat.Token, nil)
	defer r.Close()
	caughtUp := errors.New("caught up")
	err := client.Tail(context.Background(), r, 0, func(e sharevat.Entry) error {
		fmt.Println(e.Cursor, e.Kind, string(e.Body))
		if e.Cursor == 3 {
			return caughtUp // Tail returns the handler's error as is
		}
		return nil
	})
	fmt.Println(err)
	// Output:
	// 1 session {"title":"fix the login bug"}
	// 2 message {"role":"user","text":"the login form fails"}
	// 3 event {"type":"session.idle"}
	// caught up
}

// Follow a share through a Reader already held, for as long as its
// connection lasts. Reader.Tail returns the cursor to resume from: after
// EUnavailable, redeem again on a new connection and tail on from it.
func ExampleReader_Tail() {
	vat := startVat()
	defer vat.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	conn, err := client.Dial(ctx, vat.URL, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	share, err := conn.Redeem(ctx, vat.Token)
	if err != nil {
		log.Fatal(err)
	}
	rd, err := share.Reader(ctx)
	if err != nil {
		log.Fatal(err)
	}
	last, err := rd.Tail(ctx, 1, func(e sharevat.Entry) error {
		fmt.Println(e.Cursor, e.Kind)
		if e.Cursor == 3 {
			cancel() // done: Tail returns ctx.Err()
		}
		return nil
	})
	fmt.Println(last, err)
	// Output:
	// 2 message
	// 3 event
	// 3 context canceled
}
