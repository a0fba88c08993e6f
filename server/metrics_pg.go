package server

import (
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

// noticeLag registers the histogram of the change notices' lag (a vat on
// PostgreSQL) and returns the store's OnNotice hook that feeds it.
func (m *metrics) noticeLag() func(time.Duration) {
	h := histogram("notice_lag_seconds", "How long after its commit a change notice (an append, revoke, epoch bump, settings change or delete through any vat on the database) reached this vat; the clocks of two machines may differ.",
		prometheus.ExponentialBuckets(100e-6, 2, 16))
	m.reg.MustRegister(h)
	return func(d time.Duration) { h.Observe(max(d, 0).Seconds()) }
}

// watchPool exports the PostgreSQL connection pool's figures.
func (m *metrics) watchPool(stat func() *pgxpool.Stat) {
	gauge := func(name, help string, f func(*pgxpool.Stat) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sharevat_pg_pool_" + name, Help: help},
			func() float64 { return f(stat()) })
	}
	counter := func(name, help string, f func(*pgxpool.Stat) float64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "sharevat_pg_pool_" + name, Help: help},
			func() float64 { return f(stat()) })
	}
	m.reg.MustRegister(
		gauge("max_conns", "The pool's largest size (pool_max_conns in --store).", func(s *pgxpool.Stat) float64 { return float64(s.MaxConns()) }),
		gauge("conns", "Connections open, idle or in use.", func(s *pgxpool.Stat) float64 { return float64(s.TotalConns()) }),
		gauge("acquired_conns", "Connections in use.", func(s *pgxpool.Stat) float64 { return float64(s.AcquiredConns()) }),
		gauge("idle_conns", "Idle connections.", func(s *pgxpool.Stat) float64 { return float64(s.IdleConns()) }),
		counter("acquires_total", "Connections taken from the pool.", func(s *pgxpool.Stat) float64 { return float64(s.AcquireCount()) }),
		counter("empty_acquires_total", "Takes that waited because every connection was in use: the pool is too small or the database too slow.", func(s *pgxpool.Stat) float64 { return float64(s.EmptyAcquireCount()) }),
		counter("acquire_wait_seconds_total", "Time spent waiting for a connection.", func(s *pgxpool.Stat) float64 { return s.AcquireDuration().Seconds() }),
		counter("canceled_acquires_total", "Takes given up because their caller's context ended.", func(s *pgxpool.Stat) float64 { return float64(s.CanceledAcquireCount()) }),
	)
}
