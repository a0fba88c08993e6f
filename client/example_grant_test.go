package client_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
)

// Grant a narrower token, and revoke it: its holder is refused at once,
// even on a connection that is already open.
func ExampleShare_Grant() {
	vat := startVat()
	defer vat.Stop()
	ctx := context.Background()

	conn, err := client.Dial(ctx, vat.URL, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	owner, err := conn.Redeem(ctx, vat.Token)
	if err != nil {
		log.Fatal(err)
	}

	// A read-only token for a review bot, valid for a day. Hand out
	// m.Token; keep m.GrantID to revoke it.
	m, err := owner.Grant(ctx, sharevat.ScopeRead, 24*time.Hour, "review bot")
	if err != nil {
		log.Fatal(err)
	}
	bot, err := conn.Redeem(ctx, m.Token) // the bot would redeem it on its own connection
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("the bot has:", bot.Access.Scope)
	_, err = bot.Appender(ctx)
	fmt.Println("the bot appends:", sharevat.ErrorCode(err))

	if err := owner.Revoke(ctx, m.GrantID); err != nil {
		log.Fatal(err)
	}
	_, err = bot.Reader(ctx)
	fmt.Println("revoked, the bot reads:", sharevat.ErrorCode(err))
	_, err = conn.Redeem(ctx, m.Token)
	fmt.Println("revoked, the token redeems:", sharevat.ErrorCode(err))
	// Output:
	// the bot has: read
	// the bot appends: permissionDenied
	// revoked, the bot reads: revoked
	// revoked, the token redeems: unauthorized
}
