package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/spf13/pflag"
)

var healthCommand = command{
	name:    "health",
	args:    "[--url http://127.0.0.1:7420/healthz]",
	summary: "check that a vat is serving (for health checks: Docker, systemd, load balancers)",
	long: `Asks a vat's /healthz and exits 0 when it answers 200 OK, else 1 with one
line on stderr saying why. It needs no token. It is what the Docker
image's HEALTHCHECK runs, since that image has no curl. --insecure skips
the check of a TLS certificate (a vat serving --tls-cert with a
self-signed one).`,
	setup: func(fs *pflag.FlagSet) runner {
		var u string
		var timeout time.Duration
		var insecure bool
		fs.StringVar(&u, "url", "http://127.0.0.1:7420/healthz", "the vat's /healthz URL (http:// or https://)")
		fs.DurationVar(&timeout, "timeout", 3*time.Second, "give up after this long")
		fs.BoolVar(&insecure, "insecure", false, "with https://, do not check the server's certificate")
		return func(ctx context.Context, env *Env) error {
			if err := checkHealthURL(u); err != nil {
				return err
			}
			ctx, cancel := withTimeout(ctx, timeout)
			defer cancel()
			return health(ctx, env, u, insecure)
		}
	},
}

// checkHealthURL wants an http(s) URL with a host.
func checkHealthURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return usagef("--url %q: want http://HOST:PORT/healthz (or https://)", s)
	}
	return nil
}

// health GETs u and wants 200.
func health(ctx context.Context, env *Env, u string, insecure bool) error {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if insecure {
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // asked for with --insecure
	}
	hc := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return usagef("--url: %v", err)
	}
	resp, err := hc.Do(req)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("unhealthy: no answer from %s within --timeout", u)
	}
	if err != nil {
		return fmt.Errorf("unhealthy: %s: %s", u, dialCause(err))
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("unhealthy: %s answered %s", u, resp.Status)
	}
	_, err = fmt.Fprintln(env.Stdout, "ok")
	return err
}
