package main

import (
	"context"
	"fmt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
)

// target returns a token of the share the import appends to: the share
// of --into; else the share an earlier run of this import created, with
// a new owner token (Admin.resetOwner); else a new share. Its token is
// printed at once (not with --json), so that it is not lost if the
// import stops half way. The state records the share before any op is
// sent.
func (im *importer) target(ctx context.Context) (string, error) {
	into, err := im.f.intoToken()
	if err != nil {
		return "", err
	}
	switch {
	case into != "":
		return im.intoShare(ctx, into)
	case im.st.Share != "" && im.st.Complete:
		return "", fmt.Errorf("this export was already imported into share %s (recorded in %s): "+
			"pass --new to import it again as another share; 'sharevat revoke --all --share %s' with the admin token mints a new owner token for that share",
			im.st.Share, im.st.path, im.st.Share)
	case im.st.Share != "":
		return im.resume(ctx)
	}
	return im.create(ctx)
}

// withAdmin dials the vat, redeems the admin token (or asks an --open
// server) and runs fn with the Admin.
func (im *importer) withAdmin(ctx context.Context, fn func(*client.Admin) error) error {
	conn, admin, refused, err := dialAdmin(ctx, &im.f.cf)
	switch {
	case err != nil:
		return err
	case refused != nil:
		return importDenied(refused)
	}
	defer conn.Close()
	defer admin.Release()
	return fn(admin)
}

// importDenied makes an unauthorized import say which token it needs.
func importDenied(err error) error {
	if sharevat.ErrorCode(err) != sharevat.EUnauthorized {
		return err
	}
	return fmt.Errorf("%w (import needs the server's admin token, like create: "+
		"it is <data>/admin.token on the server; pass it with --token-file; "+
		"or append into a share you hold a token of with --into-file)", err)
}

// create makes the share and records it before anything is sent.
func (im *importer) create(ctx context.Context) (string, error) {
	patch := im.src.Meta()
	if im.f.title != "" {
		patch.Title = &im.f.title
	}
	if _, _, err := im.src.Settings(); err != nil {
		return "", err
	}
	var m sharevat.Minted
	err := im.withAdmin(ctx, func(a *client.Admin) error {
		sh, minted, err := a.CreateShare(ctx, patch)
		if err != nil {
			return err
		}
		defer sh.Release()
		if err := im.applySettings(ctx, sh); err != nil {
			if derr := sh.Delete(ctx); derr != nil {
				return fmt.Errorf("%w; deleting the new share %s failed too (%v): delete it with 'sharevat delete'", err, sh.Info.ID, derr)
			}
			return fmt.Errorf("%w; the new share was deleted: nothing is imported", err)
		}
		m, im.st.Share = minted, string(sh.Info.ID)
		return nil
	})
	if err != nil {
		return "", err
	}
	im.st.Total = im.src.Total()
	if err := im.st.save(); err != nil {
		return "", err
	}
	im.announce(m.Token, fmt.Sprintf("created share %s; its owner token is printed on stdout, once: keep it secret", im.st.Share))
	im.printSettings()
	return m.Token, nil
}

// resume mints a new owner token for the share an interrupted run of
// this import created.
func (im *importer) resume(ctx context.Context) (string, error) {
	var m sharevat.Minted
	err := im.withAdmin(ctx, func(a *client.Admin) error {
		var err error
		m, _, err = a.ResetOwner(ctx, sharevat.ShareID(im.st.Share))
		return err
	})
	switch sharevat.ErrorCode(err) {
	case "":
	case sharevat.ENotFound:
		return "", fmt.Errorf("%w: the share %s this export was being imported into is gone; pass --new to import it into a new share", err, im.st.Share)
	case sharevat.EPermissionDenied:
		return "", fmt.Errorf("%w: resuming the import into share %s needs the server's admin token (or --into-file with a token of that share)", err, im.st.Share)
	default:
		return "", err
	}
	im.announce(m.Token, fmt.Sprintf("resuming the import into share %s (%d of %d ops done); its new owner token is printed on stdout, once: "+
		"the one printed before no longer works", im.st.Share, im.st.Done, im.src.Total()))
	return m.Token, nil
}

// intoShare appends into the share of token, which must be the one an
// earlier run of this import used, if any.
func (im *importer) intoShare(ctx context.Context, token string) (string, error) {
	if err := checkToken(token); err != nil {
		return "", err
	}
	conn, err := client.Dial(ctx, im.f.cf.server, nil)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	sh, err := conn.Redeem(ctx, token)
	if err != nil {
		return "", denied(err)
	}
	defer sh.Release()
	id := string(sh.Info.ID)
	if im.st.Share != "" && im.st.Share != id {
		return "", fmt.Errorf("this export is being imported into share %s, and the --into token is of share %s: "+
			"give a token of %s, or pass --new (without --into) for a new share", im.st.Share, id, im.st.Share)
	}
	if im.st.Share == "" {
		im.st.Share, im.st.Total = id, im.src.Total()
		if err := im.st.save(); err != nil {
			return "", err
		}
	}
	im.announce(token, fmt.Sprintf("importing into share %s (%d of %d ops done); the --into token is printed on stdout", id, im.st.Done, im.src.Total()))
	if set, ok, _ := im.src.Settings(); ok && !im.f.cf.json {
		fmt.Fprintf(im.env.Stderr, "the export's settings (%s) are not applied: --into keeps the share's own\n", settingsText(set))
	}
	return token, nil
}

// announce prints a new token on stdout and note on stderr, unless
// --json, which prints it with the outcome.
func (im *importer) announce(token, note string) {
	if im.f.cf.json {
		return
	}
	fmt.Fprintln(im.env.Stderr, note)
	fmt.Fprintln(im.env.Stdout, token)
}
