package main

import (
	"context"
	"fmt"

	"github.com/sharevat/sharevat"

	"github.com/spf13/pflag"
)

var privacyCommand = command{
	name:    "privacy",
	args:    "[--set redact|reject|off]",
	summary: "show or set what the server does with secrets in appended ops",
	long: `Shows this share's privacy policy, or sets it with --set. The server scans
every appended op's body for secret-shaped strings (API keys, tokens,
private keys…) and, under "redact" (the default), replaces each by
[REDACTED:<rule>] before anything is stored; under "reject" it rejects the
op (reason secret, exit 4 for append); "off" scans nothing. The policy
applies to appends from then on, never to ops already stored. Setting
needs the admin right; showing needs read. --json prints {"share_id",
"privacy"}.`,
	setup: func(fs *pflag.FlagSet) runner {
		var cf clientFlags
		var set string
		cf.register(fs)
		fs.StringVar(&set, "set", "", "the policy: redact, reject or off")
		return cf.run(func(ctx context.Context, env *Env) error {
			var change func(*sharevat.Settings)
			if fs.Changed("set") {
				p, err := sharevat.ParsePrivacy(set)
				if err != nil {
					return usagef("--set: %s", sharevat.ErrorMessage(err))
				}
				change = func(s *sharevat.Settings) { s.Privacy = p }
			}
			got, id, err := settings(ctx, &cf, change)
			if err != nil {
				return err
			}
			if cf.json {
				return writeJSON(env.Stdout, map[string]any{"share_id": id, "privacy": got.Privacy.String()})
			}
			_, err = fmt.Fprintf(env.Stdout, "privacy of share %s: %s (%s)\n", id, got.Privacy, describePrivacy(got.Privacy))
			return err
		})
	},
}

// describePrivacy says in words what a policy does.
func describePrivacy(p sharevat.Privacy) string {
	switch p {
	case sharevat.PrivacyReject:
		return "an op holding a secret-shaped string is rejected"
	case sharevat.PrivacyOff:
		return "ops are not scanned"
	}
	return "secret-shaped strings are replaced by [REDACTED:<rule>] before they are stored"
}
