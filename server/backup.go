package server

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/sharevat/sharevat/store/bolt"
	"github.com/sharevat/sharevat/vat"
)

// backupHandler serves GET /backup: a consistent copy of the data file,
// to a caller whose "Authorization: Bearer <token>" is the server's admin
// token, redeemed through the vat exactly as Vault.restoreAdmin redeems
// it (audited as a redeem). Every refusal is the same 401 without
// detail; the token is never logged.
func backupHandler(redeemAdmin func(ctx context.Context, peer, token string) error, db *bolt.DB, log *slog.Logger) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", http.MethodGet)
			http.Error(w, "sharevat: GET /backup with the admin token", http.StatusMethodNotAllowed)
			return
		}
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || redeemAdmin(r.Context(), r.RemoteAddr, strings.TrimSpace(tok)) != nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="sharevat"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="sharevat.db"`)
		n, err := db.Backup(r.Context(), w)
		if err != nil {
			log.Error("backup failed", "peer", r.RemoteAddr, "bytes", n, "err", err)
			panic(http.ErrAbortHandler) // the client sees a broken copy, never a short one
		}
		log.Info("backup served", "peer", r.RemoteAddr, "bytes", n)
	}
}

// errBackupRefused is what redeemAdmin answers for any refusal.
var errBackupRefused = errors.New("refused")

// vatAdminRedeemer redeems an admin token through v, in process: the
// same check, audit record and uniform failure as Vault.restoreAdmin,
// except that a creation token (docs/opencode.md), which restoreAdmin
// also redeems, is refused. Any failure is errBackupRefused.
func vatAdminRedeemer(v *vat.Vat) func(ctx context.Context, peer, token string) error {
	return func(ctx context.Context, peer, token string) error {
		if v.RedeemAdminToken(ctx, token, peer) != nil {
			return errBackupRefused
		}
		return nil
	}
}
