package client_test

import (
	"context"
	"fmt"
	"log"
	"path/filepath"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
)

// Append through the durable outbox: Enqueue stores the ops on disk,
// Flush sends them (resending after any reconnect) until each is acked.
func ExampleOutbox() {
	vat := startVat()
	defer vat.Stop()
	ctx := context.Background()

	ob, err := client.OpenOutbox(filepath.Join(vat.Dir, "outbox.db"), client.OutboxOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer ob.Close()
	ids, err := ob.Enqueue(ctx,
		sharevat.Op{OpID: "m2", Kind: sharevat.KindMessage, Key: "msg_2", Body: []byte(`{"role":"assistant","text":"fixed"}`)},
		sharevat.Op{OpID: "m1", Kind: sharevat.KindMessage, Key: "msg_1", Body: []byte(`{"role":"user","text":"the login form fails"}`)},
		sharevat.Op{OpID: "p1", Kind: sharevat.KindPart, Key: "prt_1", Body: []byte(`not JSON`)},
	)
	if err != nil {
		log.Fatal(err)
	}

	r := client.NewRedeemer(vat.URL, vat.Token, nil)
	defer r.Close()
	if err := ob.Flush(ctx, r); err != nil {
		log.Fatal(err) // a permanent error (IsPermanent), or ctx ended; the ops stay pending
	}
	results, err := ob.Results(ids...)
	if err != nil {
		log.Fatal(err)
	}
	for _, res := range results {
		switch res.State {
		case client.OpDone:
			fmt.Println(res.OpID, res.Status, "at", res.Cursor)
		case client.OpFailed:
			fmt.Println(res.OpID, res.Status, res.Reason, "—", res.Message)
		}
	}
	// Output:
	// m2 applied at 4
	// m1 duplicate at 2
	// p1 rejected invalid — body of kind "part" is not valid JSON
}
