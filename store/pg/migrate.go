package pg

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/sharevat/sharevat"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrationLock is the pg_advisory_lock key Open holds while it
// migrates ("shvt" in ASCII), so that vats starting at once apply each
// migration once.
const migrationLock = 0x73687674

// migration is one numbered schema step, migrations/NNN_name.sql.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations lists the embedded migrations in version order.
func migrations() ([]migration, error) {
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		num, _, _ := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if err != nil {
			return nil, fmt.Errorf("migration %s: no version number", name)
		}
		text, err := migrationFS.ReadFile(name)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: base, sql: string(text)})
	}
	slices.SortFunc(out, func(a, b migration) int { return a.version - b.version })
	return out, nil
}

// SchemaVersion is the newest schema this build knows.
func SchemaVersion() int {
	ms, err := migrations()
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

// migrate applies, on one connection holding the advisory lock, every
// migration the database lacks, each in its own transaction with its
// row in schema_migrations. A database at a newer version is refused.
func (st *Store) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	conn, err := st.pool.Acquire(ctx)
	if err != nil {
		return unavailable("migrate", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", int64(migrationLock)); err != nil {
		return st.wrap("migrate", err)
	}
	defer func() {
		_, _ = conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", int64(migrationLock))
	}()
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return st.wrap("migrate", err)
	}
	var have int
	if err := conn.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&have); err != nil {
		return st.wrap("migrate", err)
	}
	if newest := ms[len(ms)-1].version; have > newest {
		return sharevat.Errorf(sharevat.EInvalid, "the database's schema is version %d; this build knows up to %d: upgrade sharevat", have, newest)
	}
	for _, m := range ms {
		if m.version <= have {
			continue
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("migration %s: %w", m.name, err)
			}
			_, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", m.version, m.name)
			return err
		})
		if err != nil {
			return st.wrap("migrate", err)
		}
	}
	return nil
}
