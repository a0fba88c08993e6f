package main

import (
	"strings"

	"github.com/spf13/pflag"
)

// envPrefix starts the name of every serve setting's environment variable.
const envPrefix = "SHAREVAT_"

// envName is the environment variable of the flag name: SHAREVAT_ and the
// name upper-cased, '-' turned to '_' (max-conns-per-ip →
// SHAREVAT_MAX_CONNS_PER_IP).
func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// addEnvUsage names each flag's environment variable in its help text.
func addEnvUsage(fs *pflag.FlagSet) {
	fs.VisitAll(func(f *pflag.Flag) { f.Usage += " (env " + envName(f.Name) + ")" })
}

// applyEnv sets every flag not given on the command line from its
// environment variable, when that is set and not empty: the command line
// wins. A value the flag refuses is a usage error naming the variable.
func applyEnv(fs *pflag.FlagSet, getenv func(string) string) error {
	var err error
	fs.VisitAll(func(f *pflag.Flag) {
		name := envName(f.Name)
		v := getenv(name)
		if err != nil || f.Changed || v == "" {
			return
		}
		if e := fs.Set(f.Name, v); e != nil {
			err = usagef("bad %s=%q: %v", name, v, e)
		}
	})
	return err
}
