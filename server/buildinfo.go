package server

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sharevat/sharevat/internal/version"
)

// buildInfo is the constant gauge sharevat_build_info, 1 with the
// version, commit and Go version of the binary as labels: the version
// string `sharevat version` prints.
func buildInfo() prometheus.Collector {
	v := version.Get()
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "sharevat_build_info",
		Help:        "1, labelled with the version, git commit and Go version the server was built from (sharevat version).",
		ConstLabels: prometheus.Labels{"version": v.Version, "commit": v.Commit, "goversion": v.Go},
	})
	g.Set(1)
	return g
}
