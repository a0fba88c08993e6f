package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/sharevat/sharevat/sturdyref"
	"github.com/sharevat/sharevat/vat"
)

// openVat loads the pepper, builds the vat and mints the admin token on
// first start.
func openVat(ctx context.Context, cfg *Config, db *servedStore, m *metrics, log *slog.Logger) (*vat.Vat, []byte, error) {
	pepper, err := db.pepper(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	verifier, err := sturdyref.NewVerifier(pepper)
	if err != nil {
		return nil, nil, err
	}
	p := cfg.Peers
	v, err := vat.New(vat.Config{Store: db.Store, Verifier: verifier, Limits: cfg.Limits, Open: cfg.Open, Logger: log, Observer: m,
		Quotas: p.Quotas, MaxChildGrants: p.MaxChildGrants, MaxForks: p.MaxForks, MaxForkDepth: p.MaxForkDepth,
		MaxTreeForks: p.MaxTreeForks, MaxTreeForkBytes: p.MaxTreeForkBytes,
		Retention: cfg.retention(m.RetentionPassed)})
	if err != nil {
		return nil, nil, err
	}
	if err := db.ensureAdmin(ctx, v, cfg.Data, log); err != nil {
		return nil, nil, errors.Join(err, CloseVat(v))
	}
	return v, pepper, nil
}

// ensureAdminToken mints the admin token into <data>/admin.token when the
// file is missing (first start, or deleted to rotate the token).
func ensureAdminToken(ctx context.Context, v *vat.Vat, dir string, log *slog.Logger) error {
	ok, err := adminTokenExists(dir)
	if err != nil || ok {
		return err
	}
	m, err := v.MintAdminToken(ctx)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, AdminFile)
	if err := WriteSecretFile(path, []byte(m.Token+"\n")); err != nil {
		return fmt.Errorf("admin token: %w", err)
	}
	log.Info("admin token written; use it with --token-file to create shares", "path", path, "grant", m.GrantID)
	return nil
}
