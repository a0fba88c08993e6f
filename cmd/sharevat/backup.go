package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/server"

	"github.com/spf13/pflag"
)

var backupCommand = command{
	name:    "backup",
	args:    "--to FILE (--token-file <data>/admin.token | --data DIR)",
	summary: "write a consistent copy of the whole vault to a file (token: admin)",
	long: `Writes a consistent copy of the vat's data file (sharevat.db, every share
and grant) to --to FILE: to FILE.tmp, synced, then renamed, so FILE is
either a whole copy or absent.

From a running vat: GET /backup on the server of --server (ws://HOST:PORT/rpc
becomes http://HOST:PORT/backup; wss:// https://), with the server's admin
token (--token-file <data>/admin.token). The vat copies the file inside one
read transaction, so appends go on meanwhile and the copy holds each of
them wholly or not at all.

From a stopped data directory: --data DIR copies DIR/sharevat.db; a
directory a running vat holds is refused (back it up through the vat).

The copy holds neither pepper.key nor admin.token: keep pepper.key with the
backups (without it no token of the copy can be verified). To restore, stop
the vat, put the copy in place as <data>/sharevat.db beside the pepper.key
it was made with, and start the vat. 'sharevat check --file FILE' verifies
a copy; --verify does it after writing.`,
	setup: func(fs *pflag.FlagSet) runner {
		var cf clientFlags
		var to, data string
		var verify bool
		cf.register(fs)
		noTimeoutByDefault(fs, &cf)
		fs.StringVar(&to, "to", "", "write the copy to this file (required)")
		fs.StringVar(&data, "data", "", "copy the data file of this stopped data directory instead of asking a running vat")
		fs.BoolVar(&verify, "verify", false, "check the copy (as 'sharevat check --file') once written")
		return cf.run(func(ctx context.Context, env *Env) error {
			if to == "" {
				return usagef("--to FILE is required: where to write the copy")
			}
			return backup(ctx, env, &cf, to, data, verify)
		})
	},
}

// backup writes the copy to to, from the vat or from data.
func backup(ctx context.Context, env *Env, cf *clientFlags, to, data string, verify bool) error {
	out, err := createBackupFile(to, data)
	if err != nil {
		return err
	}
	var n int64
	if data != "" {
		n, err = backupOffline(ctx, data, out.w)
	} else {
		n, err = backupOnline(ctx, cf, out.w)
	}
	if err = out.finish(err); err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "wrote a copy of the vault to %s (%d bytes); keep pepper.key with it\n", to, n)
	if verify {
		return checkFile(ctx, env, to, cf.json)
	}
	return nil
}

// createBackupFile opens to's temporary file, refusing to write over
// the data file being copied.
func createBackupFile(to, data string) (*output, error) {
	if data != "" && samePath(to, filepath.Join(data, dbFile)) {
		return nil, usagef("--to %q is the data file itself: write the copy elsewhere", to)
	}
	return createOutput(nil, to)
}

// samePath reports whether a and b name the same file.
func samePath(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(fa, fb)
	}
	aa, _ := filepath.Abs(a)
	ab, _ := filepath.Abs(b)
	return aa == ab
}

// backupOffline copies the data file of a stopped data directory.
func backupOffline(ctx context.Context, data string, w io.Writer) (int64, error) {
	path := filepath.Join(data, dbFile)
	n, err := server.BackupFile(ctx, path, w)
	if sharevat.ErrorCode(err) == sharevat.EUnavailable {
		return n, fmt.Errorf("%w: a running vat holds %s; back it up through the vat: "+
			"sharevat backup --to FILE --server ws://HOST:PORT/rpc --token-file %s", err, data, filepath.Join(data, adminFile))
	}
	return n, err
}

// backupURL is the /backup URL of the vat whose RPC URL is server.
func backupURL(server string) (string, error) {
	if err := checkServer(server); err != nil {
		return "", err
	}
	u, _ := url.Parse(server)
	u.Scheme = map[string]string{"ws": "http", "wss": "https"}[u.Scheme]
	u.Path = strings.TrimSuffix(u.Path, "/rpc") + "/backup"
	u.RawQuery, u.Fragment = "", ""
	return u.String(), nil
}

// backupOnline asks the running vat for its copy with the admin token.
func backupOnline(ctx context.Context, cf *clientFlags, w io.Writer) (int64, error) {
	u, err := backupURL(cf.server)
	if err != nil {
		return 0, err
	}
	tok, err := cf.theToken()
	if err != nil {
		return 0, err
	}
	if err := checkToken(tok); err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("backup: %w", err)
	}
	defer resp.Body.Close()
	if err := backupStatus(resp, u); err != nil {
		return 0, err
	}
	n, err := io.Copy(w, resp.Body)
	if err != nil {
		return n, fmt.Errorf("backup: the copy broke off after %d bytes: %w", n, err)
	}
	return n, nil
}

// backupStatus explains a refused backup.
func backupStatus(resp *http.Response, u string) error {
	switch resp.StatusCode {
	case http.StatusOK:
		return nil
	case http.StatusUnauthorized:
		return sharevat.Errorf(sharevat.EUnauthorized, "the vat refused the token: backup needs the server's admin token "+
			"(<data>/admin.token on the server; pass it with --token-file)")
	case http.StatusNotFound:
		return fmt.Errorf("%s answered 404: this vat serves no backups (an older sharevat?); stop it and use --data DIR", u)
	}
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	return fmt.Errorf("%s answered %s: %s", u, resp.Status, oneLine(string(msg)))
}
