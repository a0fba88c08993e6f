package main

import (
	"flag"
	"strings"
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
func addEnvUsage(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) { f.Usage += " (env " + envName(f.Name) + ")" })
}

// applyEnv sets every flag not given on the command line from its
// environment variable, when that is set and not empty: the command line
// wins. A value the flag refuses is a usage error naming the variable.
func applyEnv(fs *flag.FlagSet, getenv func(string) string) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		name := envName(f.Name)
		v := getenv(name)
		if err != nil || given[f.Name] || v == "" {
			return
		}
		if e := fs.Set(f.Name, v); e != nil {
			err = usagef("bad %s=%q: %v", name, v, e)
		}
	})
	return err
}

// parseServeFlags parses serve's command line, then fills the flags it
// did not give from the environment.
func parseServeFlags(fs *flag.FlagSet, env *Env, args []string) error {
	addEnvUsage(fs)
	if err := parseFlags(fs, env, args); err != nil {
		return err
	}
	return applyEnv(fs, env.Getenv)
}
