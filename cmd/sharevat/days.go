package main

import (
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/spf13/pflag"
)

// dayDuration is a pflag.Value for lifetimes and retention windows: Go's
// durations ("90m", "24h") plus days and weeks ("1d", "2w", "1w3d12h").
// A day is 24 hours here: tokens and retention count elapsed time, not
// calendar days.
type dayDuration struct{ d *time.Duration }

// dayUnits matches a number followed by d or w (not part of "ms", "us"
// or another unit: d and w are no Go unit's letters).
var dayUnits = regexp.MustCompile(`(\d+(?:\.\d+)?)([dw])`)

// parseDayDuration parses s as a Go duration that may use d and w.
func parseDayDuration(s string) (time.Duration, error) {
	var bad error
	hours := dayUnits.ReplaceAllStringFunc(s, func(m string) string {
		sub := dayUnits.FindStringSubmatch(m)
		n, err := strconv.ParseFloat(sub[1], 64)
		if err != nil {
			bad = err
			return m
		}
		if sub[2] == "w" {
			n *= 7
		}
		return strconv.FormatFloat(n*24, 'f', -1, 64) + "h"
	})
	d, err := time.ParseDuration(hours)
	if err != nil || bad != nil {
		return 0, fmt.Errorf("%q is not a duration: use a number and a unit, e.g. 90m, 24h, 7d, 2w (units: s, m, h, d, w)", s)
	}
	return d, nil
}

func (v dayDuration) Set(s string) error {
	d, err := parseDayDuration(s)
	if err != nil {
		return err
	}
	*v.d = d
	return nil
}

func (v dayDuration) String() string {
	if v.d == nil {
		return "0s"
	}
	return v.d.String()
}

func (v dayDuration) Type() string { return "duration" }

// dayDurationVar defines a duration flag that also takes days and weeks.
func dayDurationVar(fs *pflag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fs.Var(dayDuration{p}, name, usage)
	if value == 0 {
		fs.Lookup(name).DefValue = "0" // pflag leaves a zero default out of the help
	}
}
