package client_test

import (
	"context"
	"fmt"
	"log"

	"github.com/sharevat/sharevat/client"
)

// Redeem a share token and read the share's log.
func ExampleConn_Redeem() {
	vat := startVat()
	defer vat.Stop()
	ctx := context.Background()

	conn, err := client.Dial(ctx, vat.URL, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close() // releases every capability of the connection
	share, err := conn.Redeem(ctx, vat.Token)
	if err != nil {
		log.Fatal(err) // sharevat.ErrUnauthorized for a bad, revoked or expired token
	}
	fmt.Println(share.Info.Meta.Title, "—", share.Access.Scope)

	rd, err := share.Reader(ctx)
	if err != nil {
		log.Fatal(err)
	}
	entries, head, err := rd.Read(ctx, 0, 0) // every op after cursor 0, one page
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range entries {
		fmt.Println(e.Cursor, e.Kind, string(e.Body))
	}
	fmt.Println("head:", head)
	// Output:
	// fix the login bug — read,append,delegate,admin
	// 1 session {"title":"fix the login bug"}
	// 2 message {"role":"user","text":"the login form fails"}
	// 3 event {"type":"session.idle"}
	// head: 3
}
